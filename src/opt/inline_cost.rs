//! Inline or call, decided by cost (`--inline cost`, issue 33 item 2): per function, whether its
//! calls are inlined or kept as blocks ([`super::calls::flatten`]), by a static estimate of the
//! sumcheck cells each choice costs. Where keeping costs at most [`KEEP_SLACK_PERCENT`]% more
//! cells than inlining, the call wins: the function's blocks then exist once in the circuit,
//! which shrinks what is compiled, lowered, exported and committed to (the report's
//! `constraints` line).
//!
//! Algorithm ([`decide`], run on the program the front end made, before any pass):
//! 1. A program with recursion, or whose `main` calls nothing, has nothing to decide (the
//!    pipeline reports recursion itself).
//! 2. Count calls statically, callers first: `main` runs once; a call site in block `B` of `g`
//!    runs `n_g · k_B` times, `k_B` the executions of `B` per run of `g`
//!    ([`crate::cost::executions::estimated_function_executions`]: exact for counted loops
//!    with constant bounds, an estimate for branches and runtime loops). `n_f` is the sum over
//!    `f`'s sites.
//! 3. A function with one call site is inlined: keeping it would not make the circuit smaller
//!    (its code exists once either way) and would add transitions. This covers small functions
//!    called once.
//! 4. For a function with several sites, its size is measured once: a copy of the program with
//!    `f` as `main` (its own callees inlined) goes through the level's whole pipeline, block
//!    formation included, as a kept `f` is formed (at `-O0`, `inline, mem2reg, dce`), and each
//!    block is lowered: `C_b` constraints, `io_b` state, `k_b` executions per call (step 2's
//!    counts). `T_f = Σ C_b · k_b` is one call's constraints.
//! 5. With `pad(x) = max(2, next_pow2(x))` for constraints, `next_pow2` for executions:
//!    - inlined: the copies land in the calling blocks, which run as often as their calls;
//!      `Σ_B pad(m_B · T_f) · pad(e_B)` over the calling blocks `B` (`m_B` sites, `e_B`
//!      executions). This assumes formation makes a calling block and its copies one block
//!      (true of loop-free callers) and ignores the caller's own constraints in the padding;
//!    - kept: `f`'s blocks as formed, `Σ_b (pad(C_b) + pad(io_b + 1)) · pad(n_f · k_b)` (the
//!      `+ 1` is the return label), one
//!      continuation block per site, `(2 + pad(r + 1)) · pad(e_s)` with `r` the result
//!      scalars, and the return dispatch chain, whose `j`-th test runs for the sites from `j`
//!      on; and the stack: each of the caller's values live across calls (liveness on the
//!      caller as the front end made it; a reference counts as what it points to) is written
//!      once and read once, as often as the most frequent call it crosses (`flatten` keeps a
//!      value in its slot across the calls that follow), priced as the memory check prices
//!      accesses on their own. Not counted: the caller's own blocks.
//! 6. Keep `f` when `kept ≤ inlined · (100 + KEEP_SLACK_PERCENT) / 100`; otherwise inline.
//! 7. The estimate leaves out the callers' own blocks: the pieces a kept call splits its
//!    block into, which stop merging with the callee's copies (`main`'s input range checks
//!    and final additions around two kept `commit`s in `circuits/apps/grumpkin_pedersen.zok`:
//!    33,128 cells estimated, 33,480 compiled, against 32,768 inlined). So a function kept by
//!    step 6 is priced once more as a whole program (`kept_program_cells`): every other call
//!    inlined, the callers through the level's pipeline with a stand-in for `f` (its
//!    signature, no code: passes see a call as opaque), then `f` as step 4 formed it put back
//!    (so its body is not optimized again), the program flattened, lowered (through the
//!    shared cache) and counted statically. If that
//!    is above the slack, `f` is inlined. This runs on the decision's thread, beside the
//!    compile with every call inlined (`driver::compile`), so an `f` that cannot win no
//!    longer costs a second compile of the program after it.
//! 8. When anything is still kept, [`crate::driver::compile`] compiles the program with it
//!    and keeps the calls only if that, as lowered, is predicted at most
//!    `KEEP_SLACK_PERCENT`% more cells than the compile with every call inlined, with the
//!    counts formation used (a run on `--inputs`; `--explain`: "inlined after all").
//!    [`DecideOptions`] is what `decide` reads of the compile's options.
//!
//! The decisions are per function (every site of `f` is treated alike) and independent: `f`'s
//! size assumes its callees inlined even when one of them is kept. Nothing is compiled twice
//! per function: each function with several sites is optimized once on its own (its callees
//! inlined into the copy), usually a fraction of what inlining it everywhere costs.
//!
//! ```text
//! def big(field x) -> field { ... 700 multiply-adds ... }  // T = 702 constraints, one block
//! def main(field a) -> field { return small(big(big(big(a)))); }
//!
//! big: 3 sites in main's entry, 3 calls, nothing live across them
//!   inlined: pad(3 · 702) · pad(1)                     = 4,096
//!   kept:    (pad(702) + pad(io + 1)) · pad(3)         = (1,024 + 8) · 4 = 4,128
//!            + 3 continuations (3 · 4) + 2 dispatch tests (4 · 4 + 4 · 2)
//!                                                      = 4,164  <= 4,096 · 1.02: kept
//! small: one call site: inlined
//! ```

use crate::fxhash::{HashMap, HashSet};

use super::{Options, Pipeline};
use crate::analysis::Liveness;
use crate::cost::executions::function_counts;
use crate::cost::model::memory_totals;
use crate::cost::model::{padded_constraints, padded_executions, padded_state};
use crate::ir::{BlockId, FuncId, Function, InstId, InstKind, Program, ValueId};
use std::collections::BTreeSet;

/// What [`decide`] reads of a compile's [`Options`]: its plain settings and the shared stats
/// cache, all `Send`, so that the decision can run on a thread of its own beside the compile
/// (`driver::compile`). What the rest of the options hold does not reach a function measured
/// alone: formation's profile counts (a measure counts statically), its one-block cache (of
/// another program) and `-O0`'s executed bound (the whole program's, on its inputs).
#[derive(Clone, Debug)]
pub struct DecideOptions {
    verify: bool,
    min_block_size: u64,
    monolithic: bool,
    max_unrolled: usize,
    policy: super::merge::MergePolicy,
    budget: u64,
    stats_cache: Option<crate::r1cs::SharedStatsCache>,
    lower: crate::r1cs::LowerOptions,
}

impl DecideOptions {
    /// The settings of `options` a decision reads.
    pub fn of(options: &Options) -> DecideOptions {
        // Every field named: a setting added to `MergeOptions` is placed here on purpose.
        let super::merge::MergeOptions {
            min_block_size,
            monolithic,
            max_unrolled,
            policy,
            budget,
            counts: _,
            stats_cache,
            one_block: _,
            executed_bound: _,
            lower,
        } = options.merge.clone();
        DecideOptions {
            verify: options.verify,
            min_block_size,
            monolithic,
            max_unrolled,
            policy,
            budget,
            stats_cache,
            lower,
        }
    }

    /// The options a function is measured with: these settings, static counts, `cache`.
    fn options(&self, cache: crate::r1cs::SharedStatsCache) -> Options {
        Options {
            verify: self.verify,
            merge: super::merge::MergeOptions {
                min_block_size: self.min_block_size,
                monolithic: self.monolithic,
                max_unrolled: self.max_unrolled,
                policy: self.policy,
                budget: self.budget,
                stats_cache: Some(cache),
                lower: self.lower,
                ..super::merge::MergeOptions::default()
            },
            ..Options::default()
        }
    }
}

/// How much more (in percent of the inlined estimate) a kept call may cost and still win.
pub const KEEP_SLACK_PERCENT: u128 = 2;

/// What `--inline cost` decided for one function, for `report --explain`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct InlineDecision {
    /// The function, in the program the front end made (the one [`apply`] takes).
    #[serde(skip)]
    pub func: FuncId,
    /// The function's name.
    pub function: String,
    /// Its call sites in the program the front end made.
    pub sites: usize,
    /// Its calls per run of the program (step 2 of the module doc).
    pub calls: u64,
    /// Whether `calls` is exact (every site's count is static) rather than estimated.
    pub counted: bool,
    /// One call's constraints `T_f`, when measured.
    pub constraints: Option<u64>,
    /// Estimated cells of its calls inlined, when measured.
    pub cells_inlined: Option<u128>,
    /// Estimated cells of its calls kept as blocks, when measured.
    pub cells_kept: Option<u128>,
    /// Whether its calls stay calls.
    pub keep: bool,
    /// Why, in words.
    pub reason: String,
}

/// Decides, per function `main` reaches, whether to inline its calls (see the module doc).
/// `pipeline` is the level's; it runs, formation included, on copies.
pub fn decide(
    program: &Program,
    pipeline: &Pipeline,
    options: &DecideOptions,
) -> Vec<InlineDecision> {
    if super::inline::find_recursion(program).is_some() {
        return Vec::new();
    }
    let circuit = program.circuit_funcs();
    let order = callers_first(program, &circuit);
    // Calls of each function per run, and whether exact.
    let mut runs: HashMap<FuncId, (u64, bool)> = [(program.main, (1, true))].into_iter().collect();
    let mut sites: HashMap<FuncId, Vec<Site>> = HashMap::default();
    // Executions are counted on a copy with constants propagated: a loop bound the front end
    // computes from generic parameters (`0..P / R` in the Keccak sponge) is a constant only
    // after SCCP; before it, the loop's trips are estimated (16 calls of `keccakf` in
    // `circuits/apps/keccak_batch.zok` instead of its 5, which kept it as blocks at 3.3 times
    // the cells of inlining it).
    let mut folded = program.clone();
    super::sccp::run(&mut folded);
    for &g in &order {
        let (n_g, exact_g) = runs.get(&g).copied().unwrap_or((0, false));
        let func = program.func(g);
        let (known, estimated) = function_counts(folded.func(g));
        let estimated: HashMap<BlockId, u64> = estimated.into_iter().collect();
        let liveness = Liveness::new(func);
        for &b in &func.layout {
            let k = estimated.get(&b).copied().unwrap_or(0);
            let exact = exact_g && known.get(&b).copied().flatten().is_some();
            let insts = &func.block(b).insts;
            let is_call = |i: &InstId| matches!(func.inst(*i).kind, InstKind::Call { .. });
            if !insts.iter().any(is_call) {
                continue;
            }
            let mut after_calls = live_after_calls(func, &liveness, b).into_iter();
            for &i in insts.iter() {
                if let InstKind::Call { func: f, .. } = func.inst(i).kind {
                    let Some(after) = after_calls.next() else {
                        break;
                    };
                    let (saved, live) = live_across(func, after, g != program.main);
                    let e = n_g.saturating_mul(k);
                    let entry = runs.entry(f).or_insert((0, true));
                    entry.0 = entry.0.saturating_add(e);
                    entry.1 &= exact;
                    sites.entry(f).or_default().push(Site {
                        caller: g,
                        block: b,
                        executions: e,
                        saved,
                        live,
                    });
                }
            }
        }
    }
    let mut out = Vec::new();
    for &f in &order {
        if f == program.main {
            continue;
        }
        let (calls, counted) = runs.get(&f).copied().unwrap_or((0, false));
        let f_sites = sites.remove(&f).unwrap_or_default();
        let mut d = InlineDecision {
            func: f,
            function: program.func(f).name.clone(),
            sites: f_sites.len(),
            calls,
            counted,
            constraints: None,
            cells_inlined: None,
            cells_kept: None,
            keep: false,
            reason: String::new(),
        };
        if f_sites.len() <= 1 {
            d.reason = "inlined: one call site (keeping it would not shrink the circuit)".into();
            out.push(d);
            continue;
        }
        match measure(program, f, pipeline, options) {
            Err(why) => d.reason = format!("inlined: its size was not estimated ({why})"),
            Ok(size) => {
                let (inlined, kept) = estimate(&size, calls, &f_sites);
                d.constraints = Some(size.per_call);
                d.cells_inlined = Some(inlined);
                d.cells_kept = Some(kept);
                let slack = inlined.saturating_mul(100 + KEEP_SLACK_PERCENT) / 100;
                d.keep = kept <= slack;
                let n = f_sites.len();
                let how = if counted { "" } else { "about " };
                // Step 7: within the slack, the callers' own blocks may still tip it.
                let program_kept = if d.keep {
                    kept_program_cells(program, f, &size, pipeline, options).ok()
                } else {
                    None
                };
                d.reason = if let Some(cells) = program_kept.filter(|&c| c > slack) {
                    d.keep = false;
                    format!(
                        "inlined: {} cells kept vs {} inlined (within {KEEP_SLACK_PERCENT}%), \
                         {n} sites, {how}{calls} calls; but the program compiled with it kept \
                         is predicted {} cells (more than {KEEP_SLACK_PERCENT}% above)",
                        group(kept),
                        group(inlined),
                        group(cells)
                    )
                } else if d.keep {
                    format!(
                        "kept: {} cells kept vs {} inlined (within {KEEP_SLACK_PERCENT}%); \
                         its {} constraints exist once instead of at {n} sites, {how}{calls} calls",
                        group(kept),
                        group(inlined),
                        group(size.per_call.into())
                    )
                } else {
                    format!(
                        "inlined: {} cells kept vs {} inlined (more than {KEEP_SLACK_PERCENT}% \
                         above), {n} sites, {how}{calls} calls",
                        group(kept),
                        group(inlined)
                    )
                };
            }
        }
        out.push(d);
    }
    out
}

/// Applies the decisions: every call of a function not kept is inlined. Returns whether any
/// function is kept (then the program still calls, and [`super::calls::flatten`] must run).
pub fn apply(program: &mut Program, decisions: &[InlineDecision]) -> bool {
    let kept: HashSet<FuncId> = decisions
        .iter()
        .filter(|d| d.keep)
        .map(|d| d.func)
        .collect();
    super::inline::run_except(program, &kept);
    !kept.is_empty()
}

/// Renders the decisions for `report --explain`.
pub fn render(decisions: &[InlineDecision]) -> String {
    let mut out = String::from("inlining (--inline cost): sumcheck cells estimated statically\n\n");
    if decisions.is_empty() {
        out.push_str("no function is called: nothing to decide\n");
        return out;
    }
    let width = decisions
        .iter()
        .map(|d| d.function.chars().count())
        .max()
        .unwrap_or(0)
        .max("function".len());
    out.push_str(&format!(
        "{:<width$}  sites  {:>9}  verdict\n",
        "function", "calls"
    ));
    for d in decisions {
        let calls = if d.counted {
            group(d.calls.into())
        } else {
            format!("~{}", group(d.calls.into()))
        };
        out.push_str(&format!(
            "{:<width$}  {:>5}  {:>9}  {}\n",
            d.function, d.sites, calls, d.reason
        ));
    }
    out
}

fn group(n: u128) -> String {
    crate::cost::group_digits(n)
}

/// A call site: the block that calls and how often it runs per run of the program.
struct Site {
    caller: FuncId,
    block: BlockId,
    executions: u64,
    /// Scalars of the caller live across the call (its frame; the return label included).
    saved: u64,
    /// The caller's values live across the call, with their scalars.
    live: Vec<(ValueId, u64)>,
}

/// One function's blocks as they would be kept: constraints, state width and executions per
/// call; and `per_call = Σ constraints · executions`, its result scalars.
struct Size {
    blocks: Vec<(u64, u64, u64)>,
    per_call: u64,
    results: u64,
    /// `f` as the level's pipeline formed it, and the names of the measured copy's functions
    /// by id (the formed function's hints name them), for [`kept_program_cells`].
    formed: Function,
    names: Vec<String>,
}

/// The circuit functions `main` reaches, callers before callees.
fn callers_first(program: &Program, circuit: &[bool]) -> Vec<FuncId> {
    // Depth-first post-order from main lists callees first; reversed, callers first.
    let mut post = Vec::new();
    let mut seen = vec![false; program.funcs.len()];
    let mut stack = vec![(program.main, false)];
    while let Some((f, done)) = stack.pop() {
        if done {
            post.push(f);
            continue;
        }
        if seen[f.index()] {
            continue;
        }
        seen[f.index()] = true;
        stack.push((f, true));
        let func = program.func(f);
        for &b in &func.layout {
            for &i in &func.block(b).insts {
                if let InstKind::Call { func: c, .. } = func.inst(i).kind {
                    if circuit.get(c.index()).copied().unwrap_or(false) && !seen[c.index()] {
                        stack.push((c, false));
                    }
                }
            }
        }
    }
    post.reverse();
    post
}

/// `f` optimized on its own (step 4 of the module doc) and lowered.
fn measure(
    program: &Program,
    f: FuncId,
    pipeline: &Pipeline,
    options: &DecideOptions,
) -> Result<Size, String> {
    let mut copy = program.clone();
    copy.main = f;
    super::inline::drop_unreachable_functions(&mut copy);
    // The level's whole pipeline, formation included: kept, `f` is formed on its own with
    // its counts per call (its loops unrolled as when inlined), and so is the copy.
    let prefix = if pipeline.once.iter().any(|p| p.name == "inline") {
        pipeline.clone()
    } else {
        Pipeline::from_names(&["inline", "mem2reg", "dce"])
            .map_err(|e| format!("bug: legalizing passes: {e}"))?
    };
    // Formation lowers the blocks it scores through the compile's cache (or one of its own),
    // so the blocks it keeps are not lowered a second time below.
    let cache = options.stats_cache.clone().unwrap_or_default();
    let options = options.options(cache.clone());
    super::optimize(&mut copy, &prefix, &options).map_err(|e| e.to_string())?;
    let stats = cache.0.stats(&copy).map_err(|e| e.to_string())?;
    let main = copy.main;
    let func = copy.func(main);
    let counts: HashMap<BlockId, u64> = function_counts(func).1.into_iter().collect();
    let mut size = Size {
        blocks: Vec::new(),
        per_call: 0,
        results: func.returns.iter().map(|t| t.leaf_count()).sum(),
        formed: func.clone(),
        names: copy.funcs.iter().map(|g| g.name.clone()).collect(),
    };
    for s in stats.iter().filter(|s| s.func == main) {
        let k = counts.get(&s.block).copied().unwrap_or(0);
        let c = s.constraints as u64;
        size.blocks.push((c, s.state_vars as u64, k));
        size.per_call = size.per_call.saturating_add(c.saturating_mul(k));
    }
    Ok(size)
}

/// The predicted cells of the program with only `f` kept (step 7 of the module doc): every
/// other call inlined, `f` as [`measure`] formed it, the level's pipeline run on the rest
/// (formation included), flattened and legalized as the driver does, its blocks lowered through
/// the shared cache (`f`'s were lowered by [`measure`]) and counted statically. An `Err` says
/// why it was not measured.
fn kept_program_cells(
    program: &Program,
    f: FuncId,
    size: &Size,
    pipeline: &Pipeline,
    options: &DecideOptions,
) -> Result<u128, String> {
    let name = &program.func(f).name;
    let mut copy = program.clone();
    super::inline::run_except(&mut copy, &[f].into_iter().collect());
    let mut ids: HashMap<&str, FuncId> = HashMap::default();
    for id in copy.func_ids() {
        if ids.insert(copy.func(id).name.as_str(), id).is_some() {
            return Err(format!("two functions named {}", copy.func(id).name));
        }
    }
    let kept = *ids
        .get(name.as_str())
        .ok_or("the kept function was inlined")?;
    let mut formed = size.formed.clone();
    // The formed function's calls and hints name the measured copy's functions; instructions
    // not laid out may name dropped ones (`inline::drop_unreachable_functions`).
    let laid_out: HashSet<crate::ir::InstId> = formed
        .layout
        .iter()
        .flat_map(|b| formed.block(*b).insts.iter().copied())
        .collect();
    for (i, inst) in formed.insts.iter_mut().enumerate() {
        if let InstKind::Call { func: g, .. } | InstKind::Hint { func: g, .. } = &mut inst.kind {
            let id = size
                .names
                .get(g.index())
                .and_then(|name| ids.get(name.as_str()).copied());
            *g = match id {
                Some(id) => id,
                None if !laid_out.contains(&crate::ir::InstId::new(i)) => FuncId(u32::MAX),
                None => return Err("a function the copy does not have".into()),
            };
        }
    }
    // The pipeline runs on the callers with a stand-in for `f` (its passes see a call as
    // opaque, and formation prices a callee's blocks apart from its callers'); `f` as formed
    // comes back before the flattening. Run on the formed `f`, the passes and formation's
    // scoring went over its body again: most of this step on `grumpkin_pedersen`'s `commit`.
    copy.funcs[kept.index()] = stand_in(copy.func(kept), kept);
    let cache = options.stats_cache.clone().unwrap_or_default();
    let mut options = options.options(cache.clone());
    options.skip.push("inline".into());
    super::optimize(&mut copy, pipeline, &options).map_err(|e| e.to_string())?;
    copy.funcs[kept.index()] = formed;
    let legalize = |copy: &mut Program, names: &[&str]| {
        let pipeline = Pipeline::from_names(names).map_err(|e| format!("bug: {e}"))?;
        super::optimize(copy, &pipeline, &super::Options::default()).map_err(|e| e.to_string())
    };
    legalize(&mut copy, &["mem2reg", "dce"])?;
    super::calls::flatten_with(&mut copy, options.verify).map_err(|e| e.to_string())?;
    legalize(&mut copy, &["inline", "mem2reg", "dce"])?;
    let stats = cache.0.stats(&copy).map_err(|e| e.to_string())?;
    let counts = crate::cost::Counts::Static.of(&copy);
    Ok(crate::cost::predict::prediction_of(&stats, &counts).cells)
}

/// `func` (the function `me`) with its body one block that returns fresh witnesses of its
/// result types (a `hint` of `me` on its parameters): its signature without its code.
fn stand_in(func: &Function, me: FuncId) -> Function {
    let mut out = func.clone();
    let entry = out.entry;
    out.layout = vec![entry];
    let ret = out.returns.iter().cloned().collect();
    let args = out.params().iter().copied().collect();
    let hint = out.create_inst(
        InstKind::Hint {
            func: me,
            args,
            ret,
            guard: None,
        },
        &[],
        None,
    );
    let results = out.inst(hint).results.to_vec();
    let block = out.block_mut(entry);
    block.insts = vec![hint];
    block.term = Some(crate::ir::Terminator::Return(results));
    out
}

/// (inlined, kept) cells of `f`'s calls (step 5 of the module doc).
fn estimate(size: &Size, calls: u64, sites: &[Site]) -> (u128, u128) {
    let pc = |x: u64| u128::from(padded_constraints(x).unwrap_or(u64::MAX));
    let pe = |x: u64| u128::from(padded_executions(x).unwrap_or(u64::MAX));
    let ps = |x: u64| u128::from(padded_state(x));
    // Inlined: the copies of each calling block together.
    let mut by_block: HashMap<(FuncId, BlockId), (u64, u64)> = HashMap::default();
    for s in sites {
        let e = by_block
            .entry((s.caller, s.block))
            .or_insert((0, s.executions));
        e.0 += 1;
    }
    let inlined = by_block
        .values()
        .map(|&(m, e)| pc(m.saturating_mul(size.per_call)).saturating_mul(pe(e)))
        .fold(0u128, u128::saturating_add);
    // Kept: the callee's blocks, a continuation per site, the return dispatch.
    let mut kept = size
        .blocks
        .iter()
        .map(|&(c, io, k)| {
            (pc(c).saturating_add(ps(io + 1))).saturating_mul(pe(calls.saturating_mul(k)))
        })
        .fold(0u128, u128::saturating_add);
    let ret = 2 + ps(size.results + 1);
    for s in sites {
        kept = kept.saturating_add(ret.saturating_mul(pe(s.executions)));
    }
    // The stack: a value live across calls is written before the first and read back once
    // (`flatten` keeps it in its slot across the calls that follow and restores what a
    // continuation reads): two accesses a scalar, as often as the most frequent such call;
    // a callee's return label likewise.
    let mut values: HashMap<(FuncId, ValueId), (u64, u64)> = HashMap::default();
    let mut labels: HashMap<FuncId, u64> = HashMap::default();
    for s in sites {
        for &(v, n) in &s.live {
            let e = values.entry((s.caller, v)).or_insert((n, 0));
            e.1 = e.1.max(s.executions);
        }
        if s.saved > s.live.iter().map(|&(_, n)| n).sum::<u64>() {
            let e = labels.entry(s.caller).or_insert(0);
            *e = (*e).max(s.executions);
        }
    }
    let accesses: u128 = values
        .values()
        .map(|&(n, e)| 2 * u128::from(n) * u128::from(e))
        .chain(labels.values().map(|&e| 2 * u128::from(e)))
        .sum();
    let frame = sites.iter().map(|s| s.saved).max().unwrap_or(0);
    kept = kept.saturating_add(memory_totals(frame, accesses).cells);
    let mut reaching: u64 = sites.iter().map(|s| s.executions).sum();
    for s in &sites[..sites.len().saturating_sub(1)] {
        kept = kept.saturating_add(ret.saturating_mul(pe(reaching)));
        reaching = reaching.saturating_sub(s.executions);
    }
    (inlined, kept)
}

/// The values live right after each call of block `b`, its results excluded, in the order of
/// the calls: one backward walk of the block (a walk per call from the call to the block's end
/// was quadratic in a block of many calls: `unrolled_poseidon_t7.zok`'s 187).
fn live_after_calls(func: &Function, liveness: &Liveness, b: BlockId) -> Vec<BTreeSet<ValueId>> {
    let block = func.block(b);
    let mut live: BTreeSet<ValueId> = liveness.live_out(b).clone();
    if let Some(term) = &block.term {
        live.extend(term.operands());
    }
    let mut out = Vec::new();
    for &i in block.insts.iter().rev() {
        let inst = func.inst(i);
        for r in inst.results.iter() {
            live.remove(r);
        }
        if matches!(inst.kind, InstKind::Call { .. }) {
            out.push(live.clone());
        }
        live.extend(inst.kind.operands());
    }
    out.reverse();
    out
}

/// The scalars of `func` live across a call (`live`: the values live after it, its results
/// excluded; a reference counts as what it points to), plus the return label when `func` is
/// not `main`; and those values with their scalars.
fn live_across(
    func: &Function,
    live: BTreeSet<ValueId>,
    label: bool,
) -> (u64, Vec<(ValueId, u64)>) {
    let values: Vec<(ValueId, u64)> = live
        .iter()
        .filter(|v| func.const_value(**v).is_none())
        .map(|&v| {
            let t = func.value_type(v);
            (v, t.pointee().unwrap_or(t).leaf_count())
        })
        .collect();
    let scalars: u64 = values.iter().map(|&(_, n)| n).sum();
    (scalars + u64::from(label), values)
}
