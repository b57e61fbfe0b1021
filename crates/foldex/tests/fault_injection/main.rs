//! Seeded fault injection: thousands of random cases, each checked against `SequentialEx`, the
//! definition of the right answer.
//!
//! Every case is drawn from a small deterministic RNG seeded by (base seed, group, case
//! number), so any failure reproduces exactly. The groups, one `#[test]` each:
//!
//! - `folds`: `fold` and `try_fold` over a range or a slice, on a random executor
//!   (`SequentialEx`; `ThreadedEx` on the global pool or on its own pool of 1, 2 or 3 threads;
//!   `TaskPoolEx` with 1 to 4 tasks, foreground or background; all built once and shared, with
//!   a random basesize per case applied to a clone), a random length (0, 1, primes, up to a few
//!   thousand, across the 4096-item stop-check block), up to three `Break`s and up to two
//!   panics in `step` at random indices (payload `Boom(index)`), sometimes a slow item, and
//!   sometimes a panic in `combine`. The outcome (`Continue`/`Break` with the accumulator, or
//!   the panic's payload) must equal `SequentialEx`'s on the same case: the leftmost `Break`
//!   or panic decides, and a panic after the first `Break` is discarded. The accumulator is a
//!   polynomial hash of the items in order, so a lost, repeated or reordered item shows.
//!   **The rule for panics in `combine`**: `SequentialEx` never calls `combine`, so such a case
//!   is not differential; its outcome must be either exactly the sequential one, or a panic
//!   with exactly the `combine` payload (`CombineBoom`), never a wrong value or another
//!   payload. After a case that panicked, the same executor must still fold correctly.
//! - `spawned_folds`: the same cases through `spawn_fold`/`spawn_try_fold` (`SpawnExt`); the
//!   handle is joined (at once, after a random delay of up to 300 µs, or after polling
//!   `is_finished`) and must give the sequential outcome, or re-raise its payload on `join`;
//!   or it is dropped after a random delay, and then `step` must never run again.
//! - `loader_epochs`: `Loader` epochs with a random executor, buffer (1..=64), batch size
//!   (1..=9), ordered or not, shuffled or not, partial or not, owned or reused buffers,
//!   consumed whole or dropped after a random number of batches, one or two epochs. Every
//!   batch arrives once (in epoch order when ordered), `get` runs at most once per index and
//!   epoch (exactly once, and never for a dropped partial tail, when the epoch is consumed),
//!   and the stats count what was delivered.
//! - `loader_panics`: a panic in `get` at one or two random indices, each armed once: `next()`
//!   re-raises the original payload (`Boom(index)`, caught with `catch_unwind`),
//!   `failed_index()` names that index, what arrived before is a correct partial delivery, and
//!   the next epoch on the same loader is whole (or fails on a panic still armed).
//! - `loader_error_policies`: `Checked` datasets (`TryDataset`) under `ErrorPolicy::skip`,
//!   `retry(n)` (flaky items fail k <= n times), `retry(n).then_skip()` and `fail_fast`: the
//!   skipped indices are exactly the failing ones that the epoch loads, with their errors, the
//!   rest arrives exactly once; retries deliver everything and are counted; fail-fast re-raises
//!   the `ItemError` of a failing index.
//! - `loader_resumption`: take `iter.state()` after a random number of batches, drop the
//!   iterator, `resume(&state)` on the same loader or a fresh one with the same settings (up
//!   to three interruptions): what arrived before and after is, together, exactly one
//!   uninterrupted epoch (in order when ordered), nothing received before is loaded again,
//!   and the next epoch number follows the resumed one.
//!
//! This file holds the knobs, the RNG, the harness every case runs under, the executors, and
//! the six `#[test]`s; each group's cases and checks are in its module (`folds` holds both
//! fold groups), and what the loader groups share is in `loader_cases`.
//!
//! Every case runs under [`foldex_testkit::watchdog`] (a hang aborts the run after 120 s). Its
//! message, like everything a test prints, is captured by the test harness and lost when the
//! process aborts, so a case still running after 60 s is also reported directly on stderr,
//! with its full description.
//!
//! Knobs (environment variables):
//!
//! - `FOLDEX_FAULT_CASES_SCALE` (default 1) multiplies every group's case count; for a long
//!   run: `FOLDEX_FAULT_CASES_SCALE=100 cargo test --release -p foldex --test fault_injection`
//! - `FOLDEX_FAULT_SEED` (default `0xF01D_E7C4_5EED`, decimal or `0x` hex) changes the base
//!   seed: `FOLDEX_FAULT_SEED=7 cargo test -p foldex --test fault_injection`
//! - `FOLDEX_FAULT_CASE` runs only that case number of each group, to reproduce a failure:
//!   a failing case's message names the group, the case number, the base seed, the full case
//!   and the command, e.g.
//!   `FOLDEX_FAULT_SEED=0xf01de7c45eed FOLDEX_FAULT_CASE=123 cargo test -p foldex --test
//!   fault_injection folds -- --exact`
//!
//! Nothing is printed while the cases pass.
#![cfg(panic = "unwind")]

mod folds;
mod loader_cases;
mod loader_epochs;
mod loader_error_policies;
mod loader_panics;
mod loader_resumption;

use foldex::dataset::ItemError;
use foldex::prelude::*;
use foldex_testkit::Boom;
use std::any::Any;
use std::fmt;
use std::io::Write;
use std::panic;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

// ------------------------------------------------------------------------------------------------
// Knobs, seeds, the RNG
// ------------------------------------------------------------------------------------------------

const DEFAULT_SEED: u64 = 0xF01D_E7C4_5EED;

struct Knobs {
    scale: usize,
    seed: u64,
    only: Option<usize>,
}

fn knobs() -> &'static Knobs {
    static KNOBS: OnceLock<Knobs> = OnceLock::new();
    KNOBS.get_or_init(|| {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let scale = var("FOLDEX_FAULT_CASES_SCALE").map_or(1, |v| {
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|&s| s >= 1)
                .unwrap_or_else(|| {
                    panic!("FOLDEX_FAULT_CASES_SCALE must be a whole number >= 1, got {v:?}")
                })
        });
        let seed = var("FOLDEX_FAULT_SEED").map_or(DEFAULT_SEED, |v| {
            parse_u64(&v).unwrap_or_else(|| {
                panic!("FOLDEX_FAULT_SEED must be a u64 (decimal or 0x hex), got {v:?}")
            })
        });
        let only = var("FOLDEX_FAULT_CASE").map(|v| {
            v.trim()
                .parse::<usize>()
                .unwrap_or_else(|_| panic!("FOLDEX_FAULT_CASE must be a case number, got {v:?}"))
        });
        Knobs { scale, seed, only }
    })
}

fn parse_u64(v: &str) -> Option<u64> {
    let v = v.trim().replace('_', "");
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

/// SplitMix64: tiny, fast, and the same on every platform.
struct Rng(u64);

impl Rng {
    fn for_case(seed: u64, group: &str, case: usize) -> Self {
        let mut h = seed ^ 0x6A09_E667_F3BC_C908;
        for b in group.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3);
        }
        let mut rng = Rng(h ^ (case as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi);
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        self.range(0, n - 1)
    }

    /// `true` with `percent`% probability.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

// ------------------------------------------------------------------------------------------------
// Running a group of cases: watchdog, hang report, failure messages
// ------------------------------------------------------------------------------------------------

/// Where a case stands, for its failure message.
struct Ctx {
    group: &'static str,
    case: usize,
    count: usize,
    seed: u64,
}

impl Ctx {
    fn repro(&self) -> String {
        format!(
            "FOLDEX_FAULT_SEED={:#x} FOLDEX_FAULT_CASE={} cargo test -p foldex --test \
             fault_injection {} -- --exact",
            self.seed, self.case, self.group
        )
    }

    /// Fails the case with a message that names everything needed to reproduce it.
    #[track_caller]
    fn fail(&self, case: &dyn fmt::Debug, what: fmt::Arguments<'_>) -> ! {
        panic!(
            "fault injection: group `{}`, case #{} of {}, base seed {:#x}: {what}\n  case: \
             {case:?}\n  reproduce: {}",
            self.group,
            self.case,
            self.count,
            self.seed,
            self.repro()
        )
    }
}

/// The case each group is running, for the hang report.
static RUNNING: Mutex<Vec<(&'static str, Instant, String, bool)>> = Mutex::new(Vec::new());

/// How long a case may run before it is reported on stderr (the watchdog aborts at 120 s).
const HANG_REPORT: Duration = Duration::from_secs(60);

/// Starts, once, a thread that reports a case running longer than [`HANG_REPORT`] straight to
/// the process's stderr: the watchdog's own message goes through the test harness's capture,
/// which an abort discards.
fn start_hang_reporter() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_secs(1));
            let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
            for (group, since, what, reported) in running.iter_mut() {
                if !*reported && since.elapsed() > HANG_REPORT {
                    *reported = true;
                    let _ = writeln!(
                        std::io::stderr(),
                        "fault injection: group `{group}` has run {what} for {:?}: a hang? \
                         (the watchdog aborts at 120 s)",
                        since.elapsed()
                    );
                }
            }
        });
    });
}

fn set_running(group: &'static str, what: String) {
    let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    running.retain(|(g, ..)| *g != group);
    running.push((group, Instant::now(), what, false));
}

/// Takes a group off the hang report when it ends, with a failure too.
struct ClearRunning(&'static str);

impl Drop for ClearRunning {
    fn drop(&mut self) {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        running.retain(|(g, ..)| *g != self.0);
    }
}

/// A panic payload for a panic in `combine`, told apart from `step`'s `Boom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CombineBoom(usize);

/// Keeps the panics this suite injects off stderr; any other panic is reported as usual.
fn quiet_injected_panics() {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            if payload.is::<Boom>()
                || payload.is::<CombineBoom>()
                || payload.is::<ItemError<String>>()
            {
                return;
            }
            previous(info);
        }));
    });
}

/// Runs `base` × scale cases of `group` (or only `FOLDEX_FAULT_CASE`): each drawn by `draw`
/// from its own RNG and checked by `check` under a watchdog.
fn run_group<C: fmt::Debug>(
    group: &'static str,
    base: usize,
    draw: impl Fn(&mut Rng) -> C,
    mut check: impl FnMut(&Ctx, &C),
) {
    quiet_injected_panics();
    start_hang_reporter();
    let knobs = knobs();
    let count = base * knobs.scale;
    let cases = match knobs.only {
        Some(only) => only..only + 1,
        None => 0..count,
    };
    let _clear = ClearRunning(group);
    for n in cases {
        let case = draw(&mut Rng::for_case(knobs.seed, group, n));
        let ctx = Ctx {
            group,
            case: n,
            count,
            seed: knobs.seed,
        };
        let what = format!("case #{n} (reproduce: {}): {case:?}", ctx.repro());
        set_running(group, what.clone());
        foldex_testkit::watchdog(&format!("fault injection `{group}` {what}"), || {
            check(&ctx, &case)
        });
    }
}

/// What a panic's payload was.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Payload {
    Step(usize),
    Combine(usize),
    /// An `ItemError<String>` (from a `Checked` dataset): its index and error.
    Item(usize, String),
    Other(String),
}

fn payload(p: Box<dyn Any + Send>) -> Payload {
    if let Some(Boom(i)) = p.downcast_ref::<Boom>() {
        Payload::Step(*i)
    } else if let Some(CombineBoom(i)) = p.downcast_ref::<CombineBoom>() {
        Payload::Combine(*i)
    } else if let Some(s) = p.downcast_ref::<&str>() {
        Payload::Other((*s).to_owned())
    } else if let Some(s) = p.downcast_ref::<String>() {
        Payload::Other(s.clone())
    } else if let Some(e) = p.downcast_ref::<ItemError<String>>() {
        Payload::Item(e.index, e.error.clone())
    } else {
        Payload::Other("<a payload of another type>".to_owned())
    }
}

// ------------------------------------------------------------------------------------------------
// Executors: built once, a clone with the case's basesize per case
// ------------------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Sequential,
    ThreadedGlobal,
    /// `ThreadedEx` on a pool of its own with this many threads (1..=3).
    Threaded(usize),
    /// `TaskPoolEx` with this many tasks (1..=4).
    TaskPool(usize),
}

const BASES: [Base; 9] = [
    Base::Sequential,
    Base::ThreadedGlobal,
    Base::Threaded(1),
    Base::Threaded(2),
    Base::Threaded(3),
    Base::TaskPool(1),
    Base::TaskPool(2),
    Base::TaskPool(3),
    Base::TaskPool(4),
];

struct Pools {
    threaded_global: ThreadedEx,
    threaded: Vec<ThreadedEx>,
    taskpool: Vec<TaskPoolEx>,
}

fn pools() -> &'static Pools {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    POOLS.get_or_init(|| Pools {
        threaded_global: ThreadedEx::new(),
        threaded: (1..=3).map(|t| ThreadedEx::new().threads(t)).collect(),
        taskpool: (1..=4).map(|t| TaskPoolEx::new().ntasks(t)).collect(),
    })
}

/// An executor as a case uses it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ExecSpec {
    base: Base,
    basesize: Basesize,
    background: bool,
}

impl fmt::Debug for ExecSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let basesize = match self.basesize {
            Basesize::Auto => "Basesize::Auto".to_owned(),
            Basesize::Fixed(n) => format!("Basesize::fixed({n})"),
        };
        match self.base {
            Base::Sequential => write!(f, "SequentialEx"),
            Base::ThreadedGlobal => write!(f, "ThreadedEx::new().with_basesize({basesize})"),
            Base::Threaded(t) => {
                write!(
                    f,
                    "ThreadedEx::new().threads({t}).with_basesize({basesize})"
                )
            }
            Base::TaskPool(n) => write!(
                f,
                "TaskPoolEx::new().ntasks({n}).with_basesize({basesize}).background({})",
                self.background
            ),
        }
    }
}

impl ExecSpec {
    fn draw(rng: &mut Rng, len_hint: usize) -> Self {
        let base = rng.pick(&BASES);
        let basesize = match rng.below(10) {
            0..=2 => Basesize::Auto,
            3..=4 => Basesize::fixed(1).expect("nonzero"),
            5..=6 => Basesize::fixed(rng.range(2, 8)).expect("nonzero"),
            _ => Basesize::fixed(rng.range(9, len_hint.max(9) + 16)).expect("nonzero"),
        };
        let background = matches!(base, Base::TaskPool(_)) && rng.chance(50);
        Self {
            base,
            basesize,
            background,
        }
    }

    fn build(&self) -> Arc<dyn Executor> {
        let pools = pools();
        match self.base {
            Base::Sequential => Arc::new(SequentialEx),
            Base::ThreadedGlobal => {
                Arc::new(pools.threaded_global.clone().with_basesize(self.basesize))
            }
            Base::Threaded(t) => {
                Arc::new(pools.threaded[t - 1].clone().with_basesize(self.basesize))
            }
            Base::TaskPool(n) => Arc::new(
                pools.taskpool[n - 1]
                    .clone()
                    .with_basesize(self.basesize)
                    .background(self.background),
            ),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// The groups, one `#[test]` each (the names the reproduce commands give)
// ------------------------------------------------------------------------------------------------

#[test]
fn folds() {
    folds::folds();
}

#[test]
fn spawned_folds() {
    folds::spawned_folds();
}

#[test]
fn loader_epochs() {
    loader_epochs::loader_epochs();
}

#[test]
fn loader_panics() {
    loader_panics::loader_panics();
}

#[test]
fn loader_error_policies() {
    loader_error_policies::loader_error_policies();
}

#[test]
fn loader_resumption() {
    loader_resumption::loader_resumption();
}
