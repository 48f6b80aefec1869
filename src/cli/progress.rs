//! A progress bar (or spinner, when the amount of work is unknown) on stderr for commands that
//! take a while, such as `zkbc table` over the corpus: the binary's own (the library draws
//! nothing; it reports progress through callbacks such as `r1cs::CheckOptions::progress`).
//!
//! It is drawn only when all of these hold: the user did not ask for quiet, stderr is a terminal
//! (so nothing reaches logs, pipes or CI output), and the work has lasted [`DELAY`] (a command
//! that finishes quickly never flickers a bar). Until then the bar counts silently; a background
//! thread reveals it when the delay passes. Finishing clears it from the screen.
//!
//! ```text
//! use crate::cli::progress::Progress;
//! let files = ["a.zok", "b.zok"];
//! let progress = Progress::new(Some(files.len() as u64), "compiling", false);
//! for file in files {
//!     progress.set_message(file);
//!     // ... the work ...
//!     progress.inc(1);
//! }
//! progress.finish();
//! ```

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::borrow::Cow;
use std::io::IsTerminal;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How long work runs before its bar appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// The template of a bar with a known amount of work.
const COUNTED: &str = "{spinner} {msg} [{bar:30}] {human_pos}/{human_len} ({elapsed}, ETA {eta})";

/// Whether a bar may be drawn: not quiet and stderr is a terminal.
pub fn should_draw(quiet: bool, stderr_is_terminal: bool) -> bool {
    !quiet && stderr_is_terminal
}

/// A progress bar on stderr, shown after [`DELAY`] when [`should_draw`] allows it.
/// It is `Send + Sync`: rayon tasks may call [`Progress::inc`] on a shared reference.
pub struct Progress {
    bar: ProgressBar,
    enabled: bool,
    /// Dropping the sender wakes the revealing thread early, which then does nothing.
    reveal: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// A bar over `total` steps (a spinner when `None`) with `message` beside it. Hidden when
    /// `quiet` or when stderr is not a terminal.
    pub fn new(total: Option<u64>, message: impl Into<Cow<'static, str>>, quiet: bool) -> Progress {
        let enabled = should_draw(quiet, std::io::stderr().is_terminal());
        Progress::with_delay(total, message, enabled, DELAY)
    }

    /// A bar that never draws (the tests'; a command makes its bar with [`Progress::new`]).
    #[cfg(test)]
    pub fn hidden() -> Progress {
        Progress::with_delay(None, "", false, DELAY)
    }

    fn with_delay(
        total: Option<u64>,
        message: impl Into<Cow<'static, str>>,
        enabled: bool,
        delay: Duration,
    ) -> Progress {
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        let template = match total {
            Some(_) => COUNTED,
            None => "{spinner} {msg} ({elapsed})",
        };
        // The templates are constants: an error here is a bug in this file.
        let style = ProgressStyle::with_template(template)
            .expect("bug: invalid progress template")
            .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(message);
        let reveal = enabled.then(|| {
            let (tx, rx) = mpsc::channel::<()>();
            let shown = bar.clone();
            let handle = std::thread::spawn(move || {
                if rx.recv_timeout(delay) == Err(mpsc::RecvTimeoutError::Timeout) {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                    shown.enable_steady_tick(Duration::from_millis(120));
                }
            });
            (tx, handle)
        });
        Progress {
            bar,
            enabled,
            reveal,
        }
    }

    /// Whether this bar may ever be drawn (not quiet, stderr a terminal).
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Advances by `n` steps.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Makes this a bar over `total` steps, from 0, with the counts and an ETA (the block
    /// executions a check assigns, say).
    pub fn set_total(&self, total: u64) {
        let style = ProgressStyle::with_template(COUNTED)
            .expect("bug: invalid progress template")
            .progress_chars("=> ");
        self.bar.set_style(style);
        self.bar.set_length(total);
        self.bar.set_position(0);
        self.bar.reset_eta();
    }

    /// Sets the steps done.
    pub fn set_position(&self, n: u64) {
        self.bar.set_position(n);
    }

    /// Steps done so far (the tests read it; the bar draws it).
    #[cfg(test)]
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Replaces the text beside the bar, e.g. the file being compiled.
    pub fn set_message(&self, message: impl Into<Cow<'static, str>>) {
        self.bar.set_message(message);
    }

    /// A handle that sets this bar's message to `prefix` followed by what it is given, from
    /// any thread: e.g. a [`crate::timing::observe_stages`] observer naming the pass a long
    /// compile is in.
    pub fn message_setter(&self, prefix: String) -> std::sync::Arc<dyn Fn(&str) + Send + Sync> {
        let bar = self.bar.clone();
        std::sync::Arc::new(move |what: &str| bar.set_message(format!("{prefix}{what}")))
    }

    /// Runs `work` beside a spinner (hidden when `quiet`), then clears the spinner, whether the
    /// work succeeded or not: how a command that prints its result after the work starts.
    pub fn spinning<T>(quiet: bool, work: impl FnOnce(&Progress) -> T) -> T {
        let progress = Progress::new(None, "", quiet);
        let result = work(&progress);
        progress.finish();
        result
    }

    /// Stops the bar and clears it from the screen.
    pub fn finish(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if let Some((tx, handle)) = self.reveal.take() {
            drop(tx);
            // The thread only sets a draw target; a panic there would be a bug in indicatif.
            let _ = handle.join();
        }
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_only_on_a_terminal_when_not_quiet() {
        assert!(should_draw(false, true));
        assert!(!should_draw(true, true));
        assert!(!should_draw(false, false));
        assert!(!should_draw(true, false));
    }

    #[test]
    fn quiet_and_hidden_bars_never_draw_but_count() {
        for progress in [Progress::new(Some(3), "x", true), Progress::hidden()] {
            assert!(!progress.is_enabled());
            progress.inc(2);
            progress.inc(1);
            assert_eq!(progress.position(), 3);
            progress.set_total(10);
            progress.set_position(7);
            assert_eq!(progress.position(), 7);
            progress.finish();
        }
    }

    #[test]
    fn an_enabled_bar_finishing_early_stops_its_thread() {
        // Enabled by hand, with a long delay: finish must return at once, not after the delay.
        let start = std::time::Instant::now();
        let progress = Progress::with_delay(None, "x", true, Duration::from_secs(30));
        assert!(progress.is_enabled());
        progress.inc(5);
        progress.finish();
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
