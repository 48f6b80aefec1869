//! The bound formation's cuts are held to (`opt::merge::formation::split`): a cut may raise a
//! program's executed constraints only up to what `-O0` executes on the same inputs. Every
//! `-O3` compile with a profile (`report`, `check`, `prove`, `compile` with `--inputs`)
//! carries it, so they all compile the same program; it is computed from one run's block
//! counts and each block's lowered size (no execution is assigned or checked), at most once
//! per command, and only once a cut is on the table: then on a thread of its own, beside the
//! probes that find the cut ([`BoundSource::begin`]), so that the compile waits for it only
//! where it takes longer than they do. A bound never asked for is abandoned: its thread stops
//! at its next stage.

use super::{compile, legalize_for_r1cs, Options};
use crate::ir::interp;
use crate::opt::merge::{BoundSource, ExecutedBound};
use crate::opt::OptLevel;
use crate::r1cs;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

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
    let job = Job {
        file: file_name.to_owned(),
        text: text.to_owned(),
        json: json.clone(),
        o0: O0 {
            field_cmp: options.field_cmp,
            compat: options.compat,
            stdlib: options.stdlib.clone(),
            inline: options.inline,
            profile_max_steps: options.profile_max_steps,
            // Lowered as the program it bounds is.
            lower: options.opt.merge.lower,
        },
    };
    let mut bounded = options.clone();
    bounded.opt.merge.executed_bound = Some(ExecutedBound(std::rc::Rc::new(Beside {
        state: RefCell::new(State::Waiting(job)),
        abandoned: Arc::new(AtomicBool::new(false)),
    })));
    Some(bounded)
}

/// The `-O0` compile and run a bound comes from: what [`Options`] it needs, all of it `Send`.
struct Job {
    file: String,
    text: String,
    json: serde_json::Value,
    o0: O0,
}

/// The options of the `-O0` compile, as the bounded compile's.
struct O0 {
    field_cmp: crate::front::FieldCmp,
    compat: crate::front::Compat,
    stdlib: Option<std::path::PathBuf>,
    inline: crate::opt::calls::Inline,
    profile_max_steps: u64,
    lower: r1cs::LowerOptions,
}

impl Job {
    fn run(&self, abandoned: &AtomicBool) -> Option<u128> {
        let mut options = Options {
            opt_level: OptLevel::O0,
            field_cmp: self.o0.field_cmp,
            compat: self.o0.compat,
            stdlib: self.o0.stdlib.clone(),
            inline: self.o0.inline,
            profile_max_steps: self.o0.profile_max_steps,
            ..Options::default()
        };
        options.opt.merge.lower = self.o0.lower;
        executed_until(&self.file, &self.text, &self.json, &options, abandoned)
    }
}

/// A bound computed on a thread of its own from [`BoundSource::begin`] on.
struct Beside {
    state: RefCell<State>,
    /// Set when the bound is dropped: its thread, if any, stops at its next stage.
    abandoned: Arc<AtomicBool>,
}

/// Where a [`Beside`] bound is.
enum State {
    /// Not begun: what to compute.
    Waiting(Job),
    /// Computing on its thread.
    Running(JoinHandle<Option<u128>>),
    /// Known.
    Done(Option<u128>),
}

impl BoundSource for Beside {
    fn begin(&self) {
        let mut state = self.state.borrow_mut();
        let State::Waiting(_) = &*state else {
            return;
        };
        let State::Waiting(job) = std::mem::replace(&mut *state, State::Done(None)) else {
            unreachable!("matched above");
        };
        // Shared with the thread, so that the job is still here if none can be made.
        let job = Arc::new(job);
        let (on_thread, abandoned) = (Arc::clone(&job), Arc::clone(&self.abandoned));
        let spawned = std::thread::Builder::new()
            .name("-O0 bound".into())
            .spawn(move || {
                crate::timing::beside("-O0's executed constraints (beside formation)", || {
                    on_thread.run(&abandoned)
                })
            });
        *state = match (spawned, Arc::into_inner(job)) {
            (Ok(handle), _) => State::Running(handle),
            // No thread: computed when asked, on this one.
            (Err(_), Some(job)) => State::Waiting(job),
            (Err(_), None) => State::Done(None),
        };
    }

    fn get(&self) -> Option<u128> {
        let mut state = self.state.borrow_mut();
        let value = match std::mem::replace(&mut *state, State::Done(None)) {
            State::Done(value) => value,
            State::Running(handle) => {
                crate::timing::stage("-O0's executed constraints: waiting", || {
                    handle.join().ok().flatten()
                })
            }
            State::Waiting(job) => crate::timing::stage("-O0's executed constraints", || {
                job.run(&AtomicBool::new(false))
            }),
        };
        *state = State::Done(value);
        value
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }
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
    executed_until(file_name, text, json, options, &AtomicBool::new(false))
}

/// [`executed_constraints`], given up (`None`) at the first stage that finds `abandoned` set.
fn executed_until(
    file_name: &str,
    text: &str,
    json: &serde_json::Value,
    options: &Options,
    abandoned: &AtomicBool,
) -> Option<u128> {
    let going = || (!abandoned.load(Ordering::Relaxed)).then_some(());
    going()?;
    let mut compilation = compile(file_name, text, options).ok()?;
    let inputs = compilation.inputs_from_json(json).ok()?;
    going()?;
    legalize_for_r1cs(&mut compilation.program).ok()?;
    let limits = interp::Limits {
        max_steps: options.profile_max_steps,
        ..interp::Limits::default()
    };
    going()?;
    let counts = interp::count_blocks(&compilation.program, &inputs, limits).ok()?;
    going()?;
    let stats = r1cs::stats_opts(&compilation.program, compilation.lower).ok()?;
    stats.iter().try_fold(0u128, |sum, s| {
        let n = counts.get(&(s.func, s.block)).copied().unwrap_or(0);
        sum.checked_add(u128::from(n) * s.constraints as u128)
    })
}
