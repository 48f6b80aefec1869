//! The bound formation's cuts are held to (`opt::merge::formation::split`): a cut may raise a
//! program's executed constraints only up to what `-O0` executes on the same inputs. Every
//! `-O3` compile with a profile (`report`, `check`, `prove`, `compile` with `--inputs`)
//! carries it, so they all compile the same program; it is computed when a cut first asks, at
//! most once per command, from one run's block counts and each block's lowered size (no
//! execution is assigned or checked).

use super::{compile, legalize_for_r1cs, Options};
use crate::ir::interp;
use crate::opt::merge::ExecutedBound;
use crate::opt::OptLevel;
use crate::r1cs;

/// `options` with the `-O0` bound on `options.profile`'s inputs, when it is an `-O3` compile
/// with a profile that has none yet (a command's nested compiles share the one computed).
pub(super) fn with_executed_bound(
    file_name: &str,
    text: &str,
    options: &Options,
) -> Option<Options> {
    let json = options.profile.as_ref()?;
    if options.opt_level != OptLevel::O3 || options.opt.merge.executed_bound.is_some() {
        return None;
    }
    let mut o0 = Options {
        opt_level: OptLevel::O0,
        field_cmp: options.field_cmp,
        compat: options.compat,
        stdlib: options.stdlib.clone(),
        inline: options.inline,
        profile_max_steps: options.profile_max_steps,
        ..Options::default()
    };
    // Lowered as the program it bounds is.
    o0.opt.merge.lower = options.opt.merge.lower;
    let (file, text, json) = (file_name.to_owned(), text.to_owned(), json.clone());
    let memo = std::cell::OnceCell::new();
    let mut bounded = options.clone();
    bounded.opt.merge.executed_bound = Some(ExecutedBound(std::rc::Rc::new(move || {
        *memo.get_or_init(|| {
            crate::timing::stage("-O0's executed constraints", || {
                executed_constraints(&file, &text, &json, &o0)
            })
        })
    })));
    Some(bounded)
}

/// The executed constraints of `text` compiled with `options` and run on `json`, as its report
/// counts them (`Σ exec_b · cons_b`), from one run's block counts and each block's lowered
/// size: no execution is assigned or checked, which is most of what a report does (`-O0`'s
/// bound on `circuits/apps/rollup_transfers.zok`: 16.9 of its report's 17 s). `None` when it
/// does not compile, lower or run.
pub fn executed_constraints(
    file_name: &str,
    text: &str,
    json: &serde_json::Value,
    options: &Options,
) -> Option<u128> {
    let mut compilation = compile(file_name, text, options).ok()?;
    let inputs = compilation.inputs_from_json(json).ok()?;
    legalize_for_r1cs(&mut compilation.program).ok()?;
    let limits = interp::Limits {
        max_steps: options.profile_max_steps,
        ..interp::Limits::default()
    };
    let counts = interp::count_blocks(&compilation.program, &inputs, limits).ok()?;
    let stats = r1cs::stats_opts(&compilation.program, compilation.lower).ok()?;
    stats.iter().try_fold(0u128, |sum, s| {
        let n = counts.get(&(s.func, s.block)).copied().unwrap_or(0);
        sum.checked_add(u128::from(n) * s.constraints as u128)
    })
}
