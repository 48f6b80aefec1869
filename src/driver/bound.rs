//! The bound formation's cuts are held to (`opt::merge::formation::split`): a cut may raise a
//! program's executed constraints only up to what `-O0` executes on the same inputs. Every
//! `-O3` compile with a profile (`report`, `check`, `prove`, `compile` with `--inputs`)
//! carries it, so they all compile the same program. It is summed along one run of `-O0`'s
//! program (no execution is assigned or checked), each block lowered when it first runs, at
//! most once per command, and only once a cut is on the table: then on a thread of its own,
//! beside the probes that find the cut ([`BoundSource::begin`]), so that the compile waits for
//! it only where it takes longer than they do.
//!
//! A cut asks only whether the bound is *at least* the executed constraints it would give
//! ([`BoundSource::allows`]), and `-O0` nearly always executes far more (a loop's body runs
//! unrolled blocks of hundreds of constraints thousands of times): so the run pauses as soon
//! as its sum passes what was asked (or a small margin above the hint the split begins with),
//! and goes on only when a later question asks for more; a `-O0` program whose run would
//! take seconds answers after its first few blocks. The answer to a question depends only on
//! the question and the run (yes when the sum reaches it before the run ends, else the total
//! when the run completes, else unknown), never on when it is asked. A bound never asked for
//! is abandoned: its thread stops at its next stage or block.

use super::{compile, legalize_for_r1cs, Options};
use crate::ir::interp;
use crate::opt::merge::{BoundSource, ExecutedBound};
use crate::opt::OptLevel;
use crate::r1cs;
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::sync::{Arc, Condvar, Mutex};

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
        job: RefCell::new(Some(job)),
        progress: Arc::new(Progress::new(u128::MAX)),
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
    fn run(&self, progress: &Progress) -> Option<u128> {
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
        executed_until(&self.file, &self.text, &self.json, &options, progress)
    }
}

/// A bound computed on a thread of its own from [`BoundSource::begin`] on.
struct Beside {
    /// What to compute, until it is begun (kept when no thread could be made: then computed
    /// on the asking thread).
    job: RefCell<Option<Job>>,
    /// What the computation has found, shared with its thread.
    progress: Arc<Progress>,
}

/// `-O0`'s executed constraints as its run finds them, shared by the thread that runs it and
/// the compile that asks.
struct Progress {
    found: Mutex<Found>,
    /// Signalled when `found` changes.
    changed: Condvar,
}

/// See [`Progress`].
struct Found {
    /// The executed constraints of `-O0`'s run so far, published when they reach `wanted`
    /// and when the run ends.
    partial: u128,
    /// Where the run pauses: the most any question asked about, or the hint's margin above
    /// the first question's guess ([`BoundSource::begin`]).
    wanted: u128,
    /// How the computation ended: `Some(total)`, or `None` when `-O0` did not compile,
    /// lower or run to its end. Unset while it runs.
    ended: Option<Option<u128>>,
    /// Nobody will ask again (the bound was dropped): the thread stops.
    abandoned: bool,
}

impl Progress {
    fn new(wanted: u128) -> Progress {
        Progress {
            found: Mutex::new(Found {
                partial: 0,
                wanted,
                ended: None,
                abandoned: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Found> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The run's sum has reached `partial` (at least the last `wanted`): publishes it and
    /// waits until a question wants more (returned) or nobody will ask again (`None`).
    fn reached(&self, partial: u128) -> Option<u128> {
        let mut found = self.lock();
        found.partial = partial;
        self.changed.notify_all();
        while found.wanted <= partial && !found.abandoned {
            found = self.changed.wait(found).unwrap_or_else(|e| e.into_inner());
        }
        (!found.abandoned).then_some(found.wanted)
    }

    fn end(&self, total: Option<u128>) {
        let mut found = self.lock();
        if let Some(t) = total {
            found.partial = t;
        }
        found.ended = Some(total);
        self.changed.notify_all();
    }

    fn abandoned(&self) -> bool {
        self.lock().abandoned
    }

    /// Whether the bound is at least `executed` ([`BoundSource::allows`]), waiting for the run
    /// to get there or to end.
    fn allows(&self, executed: u128) -> Result<(), Option<u128>> {
        let mut found = self.lock();
        loop {
            if found.partial >= executed {
                return Ok(());
            }
            if let Some(end) = found.ended {
                return match end {
                    Some(total) if total >= executed => Ok(()),
                    end => Err(end),
                };
            }
            if found.wanted < executed {
                found.wanted = executed;
                self.changed.notify_all();
            }
            found = self.changed.wait(found).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl BoundSource for Beside {
    fn begin(&self, hint: u128) {
        let Some(job) = self.job.borrow_mut().take() else {
            return;
        };
        // A cut adds a few constraints per execution: the run pauses a margin above the
        // hint, and goes on when a question asks for more.
        self.progress.lock().wanted = hint.saturating_add(hint / 32).saturating_add(64);
        // Shared with the thread, so that the job is still here if none can be made.
        let job = Arc::new(job);
        let (on_thread, progress) = (Arc::clone(&job), Arc::clone(&self.progress));
        let spawned = std::thread::Builder::new()
            .name("-O0 bound".into())
            .spawn(move || {
                crate::timing::beside(
                    "-O0's executed constraints (beside formation, pauses included)",
                    || {
                        let total = on_thread.run(&progress);
                        progress.end(total);
                    },
                )
            });
        if let (Err(_), Some(job)) = (spawned, Arc::into_inner(job)) {
            // No thread: computed when asked, on this one.
            *self.job.borrow_mut() = Some(job);
        }
    }

    fn allows(&self, executed: u128) -> Result<(), Option<u128>> {
        self.begin(executed);
        if let Some(job) = self.job.borrow_mut().take() {
            crate::timing::stage("-O0's executed constraints", || {
                self.progress.lock().wanted = u128::MAX;
                let total = job.run(&self.progress);
                self.progress.end(total);
            });
        }
        crate::timing::stage("-O0's executed constraints: waiting", || {
            self.progress.allows(executed)
        })
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        self.progress.lock().abandoned = true;
        self.progress.changed.notify_all();
    }
}

/// The executed constraints of `text` compiled with `options` and run on `json`, as its report
/// counts them (`Σ exec_b · cons_b`), from one run's block counts and each executed block's
/// lowered size: no execution is assigned or checked, which is most of what a report does
/// (`-O0`'s bound on `circuits/apps/rollup_transfers.zok`: 16.9 of its report's 17 s). `None`
/// when it does not compile, lower or run.
pub fn executed_constraints(
    file_name: &str,
    text: &str,
    json: &serde_json::Value,
    options: &Options,
) -> Option<u128> {
    executed_until(file_name, text, json, options, &Progress::new(u128::MAX))
}

/// [`executed_constraints`], summed along the run: each block is lowered when it first runs,
/// and the sum is published to `progress` whenever it reaches what `progress` wants, where the
/// run pauses until more is wanted; given up (`None`) once `progress` is abandoned.
fn executed_until(
    file_name: &str,
    text: &str,
    json: &serde_json::Value,
    options: &Options,
    progress: &Progress,
) -> Option<u128> {
    let going = || (!progress.abandoned()).then_some(());
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
    let mut sizes = r1cs::BlockSizer::new(&compilation.program, compilation.lower);
    let (mut sum, mut wanted) = (0u128, progress.lock().wanted);
    let mut sized = true;
    let mut observe = |f, b| {
        let Ok(c) = sizes.constraints(f, b) else {
            sized = false;
            return ControlFlow::Break(());
        };
        sum += c as u128;
        if sum >= wanted {
            match progress.reached(sum) {
                Some(w) => wanted = w,
                None => return ControlFlow::Break(()),
            }
        }
        ControlFlow::Continue(())
    };
    let ended = interp::observe_blocks(&compilation.program, &inputs, limits, &mut observe);
    (ended == Ok(true) && sized).then_some(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound beside a compile answers every question as `-O0`'s exact count does (yes up to
    /// it, no with the count above it), in whatever order they come, with a hint below, at or
    /// above the count or no `begin` at all: its run pausing and going on changes no answer.
    #[test]
    fn the_bound_answers_as_the_exact_count_in_any_order() {
        for name in ["bubble_sort", "collatz", "gcd", "isqrt"] {
            let file = format!("circuits/{name}.zok");
            let source = std::fs::read_to_string(&file).unwrap();
            let json: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("circuits/{name}.json")).unwrap(),
            )
            .unwrap();
            let o0 = Options {
                opt_level: OptLevel::O0,
                ..Options::default()
            };
            let exact = executed_constraints(&file, &source, &json, &o0).expect("-O0 runs");
            assert!(exact > 4, "{name}");
            let options = Options {
                profile: Some(json.clone()),
                ..Options::default()
            };
            let questions = [1, exact / 2, exact - 1, exact, exact + 1, 2 * exact];
            let orders: [Vec<u128>; 3] = [
                questions.to_vec(),
                questions.iter().rev().copied().collect(),
                vec![exact / 2, exact + 1, exact / 3, exact, 1],
            ];
            for hint in [None, Some(1), Some(exact / 2), Some(exact), Some(3 * exact)] {
                for order in &orders {
                    let bounded = with_executed_bound(&file, &source, &options).expect("bounded");
                    let bound = bounded.opt.merge.executed_bound.expect("a bound");
                    if let Some(h) = hint {
                        bound.begin(h);
                    }
                    for &e in order {
                        let expected = match e <= exact {
                            true => Ok(()),
                            false => Err(Some(exact)),
                        };
                        assert_eq!(bound.allows(e), expected, "{name} {hint:?} {order:?} {e}");
                    }
                }
            }
        }
    }
}
