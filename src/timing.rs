//! Where a compile's time and memory go: the stages behind `--time-passes` and `--stats`.
//!
//! A stage is a named span of work on the calling thread ([`stage`]); stages nest (the
//! optimizer's passes inside `opt`, a baseline's compile inside `baselines`). When recording is
//! off (the default) a stage costs one atomic load. When it is on ([`enable`]), each stage
//! records its wall time and the process's peak resident memory so far when it ends (the
//! kernel's high-water mark, `VmHWM` of `/proc/self/status`, else `getrusage`): nothing is reset,
//! so `/usr/bin/time` and any other observer see the process's true peak. Only with
//! [`enable_stage_peaks`] (`--time-passes`, which asks for each stage's own peak) is the
//! high-water mark reset when a stage starts (`/proc/self/clear_refs`) and read when it ends,
//! a child's peak counting towards its parent's; the reset lowers what the kernel reports for
//! the process afterwards, so the process's peak is then the largest stage peak.
//!
//! ```text
//! stage                         time     peak RSS
//! front                       1.2 ms       6.1 MB
//! opt                         1.41 s     212.4 MB
//!   inline                    12 µs        6.1 MB
//!   ...
//! ```
//!
//! Recording is process-wide (the CLI turns it on once); stages record from the thread that
//! runs them, so work a stage hands to rayon is timed as part of it.
//!
//! Independently of recording, an *observer* ([`observe_stages`]) is told the name of every
//! stage as it starts: the CLI's progress spinner names the pass a long compile is in.
//!
//! These are the library's only process-wide statics with state, and they only observe: no
//! stage's result depends on whether recording or an observer is on, so they change how long
//! and what is printed, never what is computed (settings that do are values: `r1cs::LowerOptions`).

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One finished stage.
#[derive(Clone, Debug)]
pub struct Record {
    /// The stage's name.
    pub name: String,
    /// How many stages enclose it.
    pub depth: usize,
    /// Wall time.
    pub time: Duration,
    /// Peak resident memory while it ran, in bytes (`None` where the platform does not say).
    pub peak_rss: Option<u64>,
}

static ENABLED: AtomicBool = AtomicBool::new(false);
/// Whether each stage resets the kernel's high-water mark to measure its own peak.
static STAGE_PEAKS: AtomicBool = AtomicBool::new(false);
static RECORDS: Mutex<Vec<Record>> = Mutex::new(Vec::new());
/// How many times [`take`] emptied [`RECORDS`] (changed only under its lock): a stage that
/// was running then finds its record gone and does not write into another's (tests run
/// commands on several threads of one process, each taking the records).
static TAKEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// The highest stage peak: resetting the high-water mark also lowers what `getrusage` (and
/// `/usr/bin/time`) report afterwards, so the process's peak is the larger of the two.
static MAX_PEAK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// The running stages of this thread, innermost last: (index of its record, peak so far).
    static OPEN: RefCell<Vec<(usize, u64)>> = const { RefCell::new(Vec::new()) };
    /// Whether this thread runs work [`beside`] others: its stages are not recorded.
    static BESIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What [`observe_stages`] installs: called with each stage's name as it starts.
pub type StageObserver = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

static OBSERVING: AtomicBool = AtomicBool::new(false);
static OBSERVER: Mutex<Option<StageObserver>> = Mutex::new(None);

/// Where a running stage's record is: the [`TAKEN`] count when it was made, and its index.
#[derive(Clone, Copy)]
struct Slot {
    taken: u64,
    index: usize,
}

/// Records the start of stage `name` at `depth`.
fn open_record(name: &str, depth: usize) -> Slot {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    records.push(Record {
        name: name.to_string(),
        depth,
        time: Duration::ZERO,
        peak_rss: None,
    });
    Slot {
        taken: TAKEN.load(Ordering::Relaxed),
        index: records.len() - 1,
    }
}

/// Fills in the record of a stage that ended, unless [`take`] took it meanwhile.
fn close_record(slot: Slot, fill: impl FnOnce(&mut Record)) {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    if TAKEN.load(Ordering::Relaxed) == slot.taken {
        if let Some(record) = records.get_mut(slot.index) {
            fill(record);
        }
    }
}

/// Installs (or, with `None`, removes) the observer every stage is announced to as it starts,
/// on whatever thread runs it. Off, announcing costs one atomic load.
pub fn observe_stages(observer: Option<StageObserver>) {
    let mut slot = OBSERVER.lock().unwrap_or_else(|e| e.into_inner());
    OBSERVING.store(observer.is_some(), Ordering::Relaxed);
    *slot = observer;
}

/// Tells the observer ([`observe_stages`]) where long work is (`formation: round 3, candidate
/// 12 of 40`) without recording a stage; `message` is built only when someone observes.
pub fn progress(message: impl FnOnce() -> String) {
    if OBSERVING.load(Ordering::Relaxed) {
        announce(&message());
    }
}

fn announce(name: &str) {
    if !OBSERVING.load(Ordering::Relaxed) {
        return;
    }
    // Cloned out so the observer runs without the lock (it may be slow, or start stages).
    let observer = OBSERVER.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(observer) = observer {
        observer(name);
    }
}

/// Turns recording on for the rest of the process.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Turns recording on with each stage's own peak memory, measured by resetting the kernel's
/// high-water mark as each stage starts (`--time-passes`). This distorts what outside tools
/// read as the process's peak; [`peak_rss`] accounts for it.
pub fn enable_stage_peaks() {
    STAGE_PEAKS.store(true, Ordering::Relaxed);
    enable();
}

/// Whether stages are being recorded.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Runs `f` as the stage `name`, recording its time and peak memory when recording is on.
pub fn stage<T>(name: &str, f: impl FnOnce() -> T) -> T {
    announce(name);
    if !enabled() || BESIDE.with(|b| b.get()) {
        return f();
    }
    let slot = open_record(name, OPEN.with(|open| open.borrow().len()));
    let index = slot.index;
    if !STAGE_PEAKS.load(Ordering::Relaxed) {
        OPEN.with(|open| open.borrow_mut().push((index, 0)));
        let start = Instant::now();
        let out = f();
        let time = start.elapsed();
        OPEN.with(|open| open.borrow_mut().pop());
        close_record(slot, |record| {
            record.time = time;
            record.peak_rss = high_water_mark().or_else(peak_rss);
        });
        return out;
    }
    // What the enclosing stage reached before this one resets the high-water mark.
    let before = high_water_mark().unwrap_or(0);
    OPEN.with(|open| {
        let mut open = open.borrow_mut();
        if let Some(parent) = open.last_mut() {
            parent.1 = parent.1.max(before);
        }
        open.push((index, 0));
    });
    reset_high_water_mark();
    let start = Instant::now();
    let out = f();
    let time = start.elapsed();
    let peak = OPEN.with(|open| {
        let mut open = open.borrow_mut();
        let (_, child_peak) = open.pop().expect("stage stack underflow (a zkbc bug)");
        let peak = child_peak.max(high_water_mark().unwrap_or(0));
        if let Some(parent) = open.last_mut() {
            parent.1 = parent.1.max(peak);
        }
        peak
    });
    MAX_PEAK.fetch_max(peak, Ordering::Relaxed);
    close_record(slot, |record| {
        record.time = time;
        record.peak_rss = (peak > 0).then_some(peak).or_else(peak_rss);
    });
    out
}

/// Runs `f`, work on a thread of its own beside the caller's stages, as one stage `name` of
/// wall time only: the stages inside it are not recorded (they would interleave with the other
/// thread's, whose nesting the records show) and it resets no high-water mark (the other
/// thread's stages measure their peaks; this one's memory counts towards theirs).
pub fn beside<T>(name: &str, f: impl FnOnce() -> T) -> T {
    announce(name);
    if !enabled() {
        return f();
    }
    let slot = open_record(name, 0);
    let start = Instant::now();
    let was = BESIDE.with(|b| b.replace(true));
    let out = f();
    BESIDE.with(|b| b.set(was));
    let time = start.elapsed();
    close_record(slot, |record| record.time = time);
    out
}

/// A copy of every stage recorded so far, in the order they started (they stay recorded).
pub fn records() -> Vec<Record> {
    RECORDS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Every stage recorded so far, in the order they started; recording continues.
pub fn take() -> Vec<Record> {
    let mut records = RECORDS.lock().unwrap_or_else(|e| e.into_inner());
    TAKEN.fetch_add(1, Ordering::Relaxed);
    std::mem::take(&mut *records)
}

/// The process's peak resident memory in bytes (`getrusage`), `None` where unknown.
pub fn peak_rss() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: getrusage writes into the struct we pass and reads nothing else.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0 {
            // Linux reports kilobytes (macOS bytes, but zkbc's numbers are measured on Linux).
            let kb = u64::try_from(usage.ru_maxrss).unwrap_or(0);
            return (kb > 0).then_some(kb * 1024);
        }
    }
    None
}

/// `VmHWM` of `/proc/self/status` in bytes: the peak resident memory since the last reset.
fn high_water_mark() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Sets the high-water mark to the current resident memory (Linux ≥ 4.0); nothing elsewhere.
fn reset_high_water_mark() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Bytes as `12.3 MB` (decimal units, as `/usr/bin/time` users read them).
pub fn format_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} kB", b / 1e3)
    }
}

/// The `--time-passes` table: one line per stage, indented by nesting.
pub fn table(records: &[Record]) -> String {
    let mut out = format!("{:<32} {:>10} {:>11}\n", "stage", "time", "peak RSS");
    for r in records {
        let name = format!("{}{}", "  ".repeat(r.depth), r.name);
        let peak = r.peak_rss.map_or_else(|| "?".into(), format_bytes);
        out.push_str(&format!(
            "{name:<32} {:>10} {peak:>11}\n",
            format!("{:.3?}", r.time)
        ));
    }
    out
}

/// The `--stats` line: the whole process's wall time so far (from `start`) and peak memory.
pub fn stats_line(start: Instant) -> String {
    let peak = peak_rss()
        .map(|p| p.max(MAX_PEAK.load(Ordering::Relaxed)))
        .map_or_else(|| "unknown".into(), format_bytes);
    format!(
        "stats: wall time {:.3?}, peak memory {peak} (max RSS)\n",
        start.elapsed()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Held by the tests that read the records ([`take`] clears them for everyone).
    static RECORDS_TEST: Mutex<()> = Mutex::new(());

    #[test]
    fn nested_stages_are_recorded_in_start_order_with_their_depth() {
        let _records = RECORDS_TEST.lock().unwrap_or_else(|e| e.into_inner());
        enable();
        stage("outer", || {
            stage("inner", || std::hint::black_box(vec![0u8; 1 << 20]).len());
        });
        let records = take();
        let names: Vec<(&str, usize)> = records
            .iter()
            .map(|r| (r.name.as_str(), r.depth))
            .filter(|(n, _)| *n == "outer" || *n == "inner")
            .collect();
        assert_eq!(names, [("outer", 0), ("inner", 1)]);
        let outer = records.iter().find(|r| r.name == "outer").unwrap();
        let inner = records.iter().find(|r| r.name == "inner").unwrap();
        assert!(outer.time >= inner.time);
        assert!(outer.peak_rss >= inner.peak_rss);
        assert!(table(&records).contains("  inner"));
    }

    #[test]
    fn work_beside_is_one_stage_whose_inner_stages_are_not_recorded() {
        let _records = RECORDS_TEST.lock().unwrap_or_else(|e| e.into_inner());
        enable();
        std::thread::scope(|s| {
            let beside = s.spawn(|| {
                let out = beside("beside work", || {
                    stage("beside inner", || stage("beside deeper", || 1))
                });
                // After the work beside, the thread's stages record again.
                stage("beside after", || out)
            });
            stage("main outer", || stage("main inner", || ()));
            assert_eq!(beside.join().unwrap(), 1);
        });
        let records = records();
        let ours: Vec<(&str, usize)> = records
            .iter()
            .map(|r| (r.name.as_str(), r.depth))
            .filter(|(n, _)| n.starts_with("beside") || n.starts_with("main "))
            .collect();
        assert!(ours.contains(&("beside work", 0)), "{ours:?}");
        assert!(ours.contains(&("main outer", 0)) && ours.contains(&("main inner", 1)));
        assert!(ours.contains(&("beside after", 0)), "{ours:?}");
        assert!(!ours
            .iter()
            .any(|(n, _)| n.contains("inner") && n.starts_with("beside")));
        assert!(!ours.iter().any(|(n, _)| *n == "beside deeper"));
        let work = records.iter().find(|r| r.name == "beside work").unwrap();
        assert_eq!(work.peak_rss, None);
    }

    #[test]
    fn an_observer_hears_every_stage_as_it_starts() {
        let heard = std::sync::Arc::new(Mutex::new(Vec::new()));
        let sink = heard.clone();
        observe_stages(Some(std::sync::Arc::new(move |name: &str| {
            sink.lock().unwrap().push(name.to_string())
        })));
        stage("observed outer", || stage("observed inner", || ()));
        observe_stages(None);
        stage("not observed", || ());
        let heard = heard.lock().unwrap();
        // Other tests' stages may run meanwhile: only this test's names are compared.
        let ours: Vec<&str> = heard
            .iter()
            .map(String::as_str)
            .filter(|n| n.contains("observed"))
            .collect();
        assert_eq!(ours, ["observed outer", "observed inner"]);
    }

    #[test]
    fn bytes_read_in_decimal_units() {
        assert_eq!(format_bytes(1_500), "1.5 kB");
        assert_eq!(format_bytes(280_000_000), "280.0 MB");
        assert_eq!(format_bytes(1_310_000_000), "1.31 GB");
    }
}
