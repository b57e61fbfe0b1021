//! [`AutoEx`]: the executor that chooses, per fold, how to run it, from what the fold's first
//! items cost on the calling thread.
//!
//! ```
//! use foldex_auto::{AutoEx, Choice};
//! use foldex_core::ExecutorExt;
//!
//! let ex = AutoEx::new();
//! assert_eq!(ex.sum::<usize>(0..8), 28);
//! // Eight cheap items: most likely `Choice::Inline`, no thread woken.
//! let choice: Choice = ex.last_choice().expect("a fold ran");
//! println!("{choice}");
//! ```
//!
//! For each fold, [`AutoEx`] runs the first items on the calling thread while it reads the wall
//! clock and the thread's CPU clock ([`foldex_core::exec::measure_first_items`]):
//!
//! - a fold whose whole cost is below a wake-up finishes there ([`Choice::Inline`]);
//! - items that spent less than half their wall time on the CPU wait for something (a disk, a
//!   network, a sleep): the rest goes to a task pool with more tasks than cores
//!   ([`Choice::Waiting`]), so that waits overlap;
//! - other items compute: the rest goes to work stealing with the automatic basesize
//!   ([`Choice::Stealing`]), which balances uneven work.
//!
//! **Items of one fold must not wait for each other** under `AutoEx`: its first items run on
//! the caller before any other thread starts, so an item that waits for another item of the
//! same fold (a barrier across items) would wait forever. `ThreadedEx` and `TaskPoolEx` do not
//! measure, and run such folds as before.
//!
//! A fold whose caller stands in for a helper (a data loader's driver: the job's
//! [`Job::caller`] is [`Caller::StandsIn`]) is not measured on that thread: a loader's items
//! run until the epoch is done, so its first item would be the whole epoch. Instead the folds
//! of each length go in turn to the task pool ([`Choice::HelperTaskPool`]), to work stealing
//! with one index per piece ([`Choice::HelperStealing`]) and, with two cores or more, to work
//! stealing on one thread fewer than cores ([`Choice::HelperSpareCore`], which leaves the
//! consumer a core), once each, then once more each that took at most [`CLOSE_ENOUGH`] times
//! the fastest, and later ones to whichever was fastest, with the slower ones tried again now
//! and then (after [`MEASURE_EVERY`] folds times the factor by which each lost, times the
//! number of slower ones, then at least twice as many each time it loses again, up to
//! [`MAX_TRY_AGAIN_AFTER`]); a fold shorter than [`OBSERVED_AT_LEAST`] teaches nothing. The
//! helper's [`Executor::help`] helps each pool.
//!
//! The pools are the global `ThreadedEx` pool, a `ThreadedEx` pool of one thread fewer than
//! cores (started the first time a helper's fold tries it) and one task pool of
//! [`WAITING_TASKS_PER_CORE`] tasks per core, made on first use and kept warm for every
//! `AutoEx`. [`Executor::workers`] is that pool's task count, the most pieces that may run at
//! once, so a loader's default buffer on `AutoEx` holds two batches per task.
//!
//! **Memory.** An `AutoEx` (and its clones) remembers what it chose for folds of each length it
//! has seen (the job's shape; [`REMEMBERED_SHAPES`] of them at most, in a [`ChoiceTable`]: a
//! length whose group of the table is full takes the place of another): a fold of a length
//! that ran inline, or went to the task pool or to work stealing, goes there again without
//! measuring, and one fold in [`MEASURE_EVERY`] of that shape measures again, so that a shape
//! whose work changed is chosen for anew.
//! Recalling a choice takes no lock, no allocation and no clock: a remembered inline fold costs
//! what `SequentialEx` costs, a few nanoseconds more, and builds no job (`AutoEx` answers
//! [`Executor::runs_inline`] [`RunsInline::Yes`] for it). Measuring costs a few microseconds of
//! work for cheap items, but a whole item (on the caller, before any other thread starts) for
//! items that wait; a shape that ran inline measures again by timing one whole fold inline (two
//! clock reads: `AutoEx` answers [`RunsInline::Timed`] for it, and the typed layer reports its
//! time to [`Executor::ran_inline`], still with no job), and one that took a wake-up or more is
//! forgotten, so that its next fold measures from the start. So a length whose items grew costly runs inline for up to
//! [`MEASURE_EVERY`] folds before it is handed on, as a length that went to a pool stays there
//! that long; a fold that stopped early (a `Break`) teaches nothing about inline.
#![forbid(unsafe_code)]

mod helper;
mod waiting;

pub use helper::{CLOSE_ENOUGH, MAX_TRY_AGAIN_AFTER, OBSERVED_AT_LEAST};

use cpu_time::ThreadTime;
use foldex_core::exec::{
    measure_first_items, run_pieces, ChoiceTable, FirstItems, JoinHalf, Recalled, WhileWaiting,
    WAKE_UP,
};
use foldex_core::{available_parallelism, Caller, Executor, Job, Partial, RunsInline};
use foldex_taskpool::TaskPoolEx;
use foldex_threaded::ThreadedEx;
use helper::{HelperPool, HelperTimes};
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use waiting::WAITING;

/// Tasks per core of the pool that runs items that wait.
pub const WAITING_TASKS_PER_CORE: usize = 8;

/// How many fold lengths an `AutoEx` remembers a choice for: the lengths its [`ChoiceTable`]
/// holds (a length whose group is full takes the place of another), and the lengths of a
/// helper's folds whose times it keeps (past that it forgets them all and starts over).
pub const REMEMBERED_SHAPES: usize = ChoiceTable::LENGTHS;

/// A remembered shape measures again on every this many folds.
pub const MEASURE_EVERY: u32 = 16;

/// How [`AutoEx`] ran a fold, and why; see [`AutoEx::last_choice`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Choice {
    /// On the calling thread: the whole fold cost less than a wake-up.
    Inline,
    /// Work stealing (`ThreadedEx` with the automatic basesize): the items compute.
    Stealing,
    /// A task pool of `ntasks` tasks (`TaskPoolEx`, basesize 1): the items spent less than half
    /// their time on the CPU, so more tasks than cores overlap their waits.
    Waiting {
        /// The tasks of the pool.
        ntasks: usize,
    },
    /// A helper's fold (a data loader's driver's) on the task pool of `ntasks` tasks, basesize
    /// 1: while every pool is timed, or the pool that ran that length fastest.
    HelperTaskPool {
        /// The tasks of the pool.
        ntasks: usize,
    },
    /// A helper's fold on work stealing with one index per piece: while every pool is timed,
    /// or the pool that ran that length fastest.
    HelperStealing,
    /// A helper's fold on work stealing with one index per piece, on `threads` threads, one
    /// fewer than cores: the helper (a loader's consumer) keeps a core of its own. While every
    /// pool is timed, or the pool that ran that length fastest.
    HelperSpareCore {
        /// The threads of the pool.
        threads: usize,
    },
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Inline => f.write_str("inline: the fold cost less than a wake-up"),
            Self::Stealing => f.write_str("work stealing: the items compute"),
            Self::Waiting { ntasks } => write!(
                f,
                "a task pool of {ntasks} tasks: the items spent most of their time waiting"
            ),
            Self::HelperTaskPool { ntasks } => write!(
                f,
                "a task pool of {ntasks} tasks: a loader's fold, timed on each pool"
            ),
            Self::HelperStealing => {
                f.write_str("work stealing, basesize 1: a loader's fold, timed on each pool")
            }
            Self::HelperSpareCore { threads } => write!(
                f,
                "work stealing on {threads} threads, basesize 1, leaving the consumer a core: a \
                 loader's fold, timed on each pool"
            ),
        }
    }
}

/// The executor that picks, per fold, inline, work stealing or a task pool; see the crate docs.
///
/// Cheap to clone; clones share what [`AutoEx::last_choice`] reports, and what it remembers.
#[derive(Clone, Default)]
pub struct AutoEx {
    state: Arc<State>,
}

/// What an `AutoEx` knows.
struct State {
    /// The last choice's [`Choice::code`]; 0 before the first fold.
    last: AtomicU8,
    /// Per shape: the choice's code, and the folds of that shape since it was measured.
    shapes: ChoiceTable,
    /// Per length of a helper's fold: what its folds took on each pool. Behind a lock: a
    /// helper's fold is a loader's round, long next to it.
    helpers: Mutex<HashMap<Shape, HelperTimes>>,
}

impl Default for State {
    fn default() -> Self {
        const EVERY: u8 = {
            assert!(MEASURE_EVERY >= 1 && MEASURE_EVERY <= u8::MAX as u32);
            MEASURE_EVERY as u8
        };
        Self {
            last: AtomicU8::new(0),
            shapes: ChoiceTable::new(EVERY),
            helpers: Mutex::default(),
        }
    }
}

impl Choice {
    /// The choice as a non-zero `u8` (its pool's size is the machine's, so it need not be
    /// kept), for the atomics an `AutoEx` keeps its choices in.
    fn code(self) -> u8 {
        match self {
            Self::Inline => 1,
            Self::Stealing => 2,
            Self::Waiting { .. } => 3,
            Self::HelperTaskPool { .. } => 4,
            Self::HelperStealing => 5,
            Self::HelperSpareCore { .. } => 6,
        }
    }

    /// The choice whose [`Choice::code`] is `code`; `None` for any other `u8`.
    fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::Inline,
            2 => Self::Stealing,
            3 => Self::Waiting {
                ntasks: waiting_tasks(),
            },
            4 => helper_task_pool(),
            5 => Self::HelperStealing,
            6 => helper_spare_core(),
            _ => return None,
        })
    }
}

impl fmt::Debug for AutoEx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AutoEx")
            .field("last_choice", &self.last_choice())
            .finish()
    }
}

fn stealing() -> &'static ThreadedEx {
    static STEALING: OnceLock<ThreadedEx> = OnceLock::new();
    STEALING.get_or_init(ThreadedEx::new)
}

fn helper_stealing() -> &'static ThreadedEx {
    static HELPER_STEALING: OnceLock<ThreadedEx> = OnceLock::new();
    HELPER_STEALING.get_or_init(|| ThreadedEx::new().basesize(1))
}

/// Work stealing on one thread fewer than cores; started the first time a helper's fold tries
/// it (never on a one-core machine).
fn helper_spare_core() -> Choice {
    Choice::HelperSpareCore {
        threads: spare_core_threads(),
    }
}

fn spare_core_threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| available_parallelism().saturating_sub(1).max(1))
}

static SPARE_CORE: OnceLock<ThreadedEx> = OnceLock::new();

fn spare_core() -> &'static ThreadedEx {
    SPARE_CORE.get_or_init(|| ThreadedEx::new().threads(spare_core_threads()).basesize(1))
}

fn waiting() -> &'static TaskPoolEx {
    static WAITING: OnceLock<TaskPoolEx> = OnceLock::new();
    WAITING.get_or_init(|| TaskPoolEx::new().ntasks(waiting_tasks()).basesize(1))
}

/// The tasks of the pool that runs items that wait (the cores are counted once: a count reads
/// files on some systems).
fn waiting_tasks() -> usize {
    static TASKS: OnceLock<usize> = OnceLock::new();
    *TASKS.get_or_init(|| available_parallelism().saturating_mul(WAITING_TASKS_PER_CORE))
}

/// A helper's fold on the task pool.
fn helper_task_pool() -> Choice {
    Choice::HelperTaskPool {
        ntasks: waiting_tasks(),
    }
}

/// What a fold is remembered by: its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Shape {
    len: usize,
}

/// Runs `job` on the pool `choice` names; `None` for [`Choice::Inline`], which the caller runs.
fn run_on<'a>(choice: Choice, job: &dyn Job<'a>) -> Option<Partial<'a>> {
    Some(match choice {
        Choice::Inline => return None,
        Choice::Stealing => stealing().execute(job),
        Choice::Waiting { .. } | Choice::HelperTaskPool { .. } => waiting().execute(job),
        Choice::HelperStealing => helper_stealing().execute(job),
        Choice::HelperSpareCore { .. } => spare_core().execute(job),
    })
}

/// Items spending less than this share of their wall time on the CPU count as waiting.
pub const WAITING_CPU_SHARE: f64 = 0.5;

/// What [`AutoEx`] knows of a fold when it chooses: the model it decides by, public so that a
/// tool (`foldex advise`) can ask what `AutoEx` would do with a workload it describes.
///
/// ```
/// use foldex_auto::{Choice, Estimate};
/// use std::time::Duration;
///
/// let sleepy = Estimate {
///     len: 1000,
///     item_cost: Duration::from_millis(1),
///     cpu_share: Some(0.01),
///     for_helper: false,
/// };
/// assert!(matches!(sleepy.choice(), Choice::Waiting { .. }));
/// let tiny = Estimate { len: 8, item_cost: Duration::from_nanos(10), ..sleepy };
/// assert_eq!(tiny.choice(), Choice::Inline);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The fold's items.
    pub len: usize,
    /// What one item costs (wall time).
    pub item_cost: Duration,
    /// The share of that time spent on the CPU; `None` where there is no CPU clock (the items
    /// are taken to compute).
    pub cpu_share: Option<f64>,
    /// Whether the caller stands in for a helper (a loader's driver); its fold is not
    /// measured on the caller, so `item_cost` and `cpu_share` do not count.
    pub for_helper: bool,
}

impl Estimate {
    /// What `AutoEx` chooses for such a fold: the task pool for a helper's first fold of a
    /// length (whatever its items cost; later ones go by the time each pool took), inline when
    /// the whole fold costs less than a wake-up ([`foldex_core::exec::WAKE_UP`]), the task pool
    /// when the items spend less than [`WAITING_CPU_SHARE`] of their time on the CPU, work
    /// stealing otherwise.
    pub fn choice(&self) -> Choice {
        if self.for_helper {
            return helper_task_pool();
        }
        let total = self
            .item_cost
            .checked_mul(u32::try_from(self.len).unwrap_or(u32::MAX))
            .unwrap_or(Duration::MAX);
        if total < WAKE_UP {
            Choice::Inline
        } else {
            self.pool()
        }
    }

    /// The pool for a fold worth handing on.
    fn pool(&self) -> Choice {
        if self
            .cpu_share
            .is_some_and(|share| share < WAITING_CPU_SHARE)
        {
            Choice::Waiting {
                ntasks: waiting_tasks(),
            }
        } else {
            Choice::Stealing
        }
    }
}

impl AutoEx {
    /// An `AutoEx` (its pools are shared by every `AutoEx` and made on first use).
    pub fn new() -> Self {
        Self::default()
    }

    /// How the last fold run by this executor (or a clone) ran; `None` before the first.
    pub fn last_choice(&self) -> Option<Choice> {
        Choice::from_code(self.state.last.load(Ordering::Relaxed))
    }

    /// Notes `choice` as the last one; no store when it is the last one already, so that
    /// threads running folds of one choice do not write to one cache line in turn.
    fn note(&self, choice: Choice) {
        let code = choice.code();
        if self.state.last.load(Ordering::Relaxed) != code {
            self.state.last.store(code, Ordering::Relaxed);
        }
    }

    fn helpers(&self) -> MutexGuard<'_, HashMap<Shape, HelperTimes>> {
        self.state.helpers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs a helper's fold on the pool its length's record chooses, and records its time;
    /// see `helper.rs`.
    fn execute_for_helper<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        let shape = Shape { len: job.len() };
        let pool = self
            .helpers()
            .get(&shape)
            .map_or(HelperPool::TaskPool, HelperTimes::next);
        self.note(pool.choice());
        let started = Instant::now();
        let partial = run_on(pool.choice(), job).expect("a helper's fold never runs inline");
        let wall = started.elapsed();
        // A short fold teaches nothing, and must not crowd out the shapes that did (a loader's
        // later rounds of an epoch have lengths of their own).
        if wall >= OBSERVED_AT_LEAST {
            let mut helpers = self.helpers();
            if helpers.len() >= REMEMBERED_SHAPES && !helpers.contains_key(&shape) {
                helpers.clear();
            }
            helpers
                .entry(shape)
                .or_insert_with(|| {
                    HelperTimes::new(HelperPool::candidates(available_parallelism()))
                })
                .learn(pool, wall);
        }
        partial
    }

    /// Remembers `choice`, just measured, for folds of this shape.
    fn learned(&self, shape: Shape, choice: Choice) {
        self.note(choice);
        self.state.shapes.learn(shape.len, choice.code());
    }

    /// Remembers that `job`, just run to its end on the caller, ran inline; unless it stopped
    /// early (a `Break`, a panic, a cancel): what it cost says nothing of the next fold of its
    /// length, which may run to its end.
    fn learned_inline(&self, shape: Shape, job: &dyn Job<'_>) {
        if job.is_stopped(shape.len) {
            self.note(Choice::Inline);
        } else {
            self.learned(shape, Choice::Inline);
        }
    }

    /// Runs a fold of a shape that ran inline on the caller, timed as a whole, and learns from
    /// it ([`AutoEx::inline_took`]) if it ran to its end; one that stopped early teaches
    /// nothing, and the next fold of its shape is measured again.
    fn inline_measured_again<'a>(&self, shape: Shape, job: &dyn Job<'a>) -> Partial<'a> {
        let started = Instant::now();
        let partial = run_pieces(job, 0..shape.len, |range| job.run(range));
        let took = started.elapsed();
        if job.is_stopped(shape.len) {
            self.note(Choice::Inline);
        } else {
            self.inline_took(shape, took);
        }
        partial
    }

    /// Learns from a whole fold of a shape that ran inline, measured again: a shape that still
    /// costs less than a wake-up stays inline for [`MEASURE_EVERY`] folds more, one that grew
    /// is forgotten, and its next fold measures from the start.
    fn inline_took(&self, shape: Shape, took: Duration) {
        if took < WAKE_UP {
            self.learned(shape, Choice::Inline);
        } else {
            self.note(Choice::Inline);
            self.state.shapes.forget(shape.len);
        }
    }
}

impl Executor for AutoEx {
    fn execute<'a>(&self, job: &dyn Job<'a>) -> Partial<'a> {
        // Nested in work this thread took inside `help`: every piece runs as such, on whichever
        // pool.
        let while_waiting;
        let job: &dyn Job<'a> = if WAITING.is_waiting() {
            while_waiting = WhileWaiting(job);
            &while_waiting
        } else {
            job
        };
        if job.caller() == Caller::StandsIn {
            return self.execute_for_helper(job);
        }
        let shape = Shape { len: job.len() };
        match self.state.shapes.recall(shape.len) {
            Recalled::Remembered(code) if code == Choice::Inline.code() => {
                self.note(Choice::Inline);
                return run_pieces(job, 0..shape.len, |range| job.run(range));
            }
            Recalled::Remembered(code) => {
                let choice = Choice::from_code(code).expect("a code this executor learned");
                self.note(choice);
                return run_on(choice, job).expect("not inline");
            }
            Recalled::MeasureAgain(code) if code == Choice::Inline.code() => {
                return self.inline_measured_again(shape, job);
            }
            Recalled::MeasureAgain(_) | Recalled::Unknown => {}
        }
        let cpu_before = ThreadTime::try_now().ok();
        match measure_first_items(job, stealing().workers()) {
            FirstItems::Done(partial) => {
                self.learned_inline(shape, job);
                partial
            }
            FirstItems::Rest(rest) => {
                let (items, wall) = rest.measured();
                let cpu = cpu_before.map(|before| before.elapsed());
                let estimate = Estimate {
                    len: shape.len,
                    item_cost: wall / u32::try_from(items.max(1)).unwrap_or(u32::MAX),
                    cpu_share: cpu
                        .filter(|_| !wall.is_zero())
                        .map(|cpu| cpu.as_secs_f64() / wall.as_secs_f64()),
                    for_helper: false,
                };
                // Not inline: the measurement found the fold worth handing on.
                let choice = estimate.pool();
                self.learned(shape, choice);
                let partial = run_on(choice, rest.job()).expect("not inline");
                rest.finish(partial)
            }
        }
    }

    /// For folds of `len` items remembered as inline: [`RunsInline::Yes`], counting the fold
    /// as `execute` would, or [`RunsInline::Timed`] for the fold whose turn to be measured
    /// again has come ([`ran_inline`](Executor::ran_inline) learns from it). Otherwise
    /// [`RunsInline::No`], with nothing counted: `execute` recalls the fold itself.
    #[inline]
    fn runs_inline(&self, len: usize) -> RunsInline {
        let inline = Choice::Inline.code();
        let runs = match self.state.shapes.recall_as(len, inline) {
            Recalled::Remembered(code) if code == inline => RunsInline::Yes,
            Recalled::MeasureAgain(code) if code == inline => RunsInline::Timed,
            _ => return RunsInline::No,
        };
        self.note(Choice::Inline);
        runs
    }

    /// Learns from a fold of a length remembered as inline, measured again: it stays inline if
    /// it took less than a wake-up, else it is forgotten.
    fn ran_inline(&self, len: usize, took: Duration) {
        self.inline_took(Shape { len }, took);
    }

    /// The task pool's tasks: the most pieces that may run at once (a loader sizes its buffer
    /// from it).
    fn workers(&self) -> usize {
        waiting_tasks()
    }

    fn is_worker_thread(&self) -> bool {
        stealing().is_worker_thread()
            || waiting().is_worker_thread()
            || SPARE_CORE.get().is_some_and(ThreadedEx::is_worker_thread)
    }

    /// Helps the pools that run the folds a loader's driver starts.
    fn help(&self) -> bool {
        WAITING.while_waiting(|| {
            helper_stealing().help()
                || waiting().help()
                || SPARE_CORE.get().is_some_and(ThreadedEx::help)
        })
    }

    /// On the work-stealing pool: a join is fine-grained by nature, and a half that another
    /// worker wants is handed over there without measuring anything.
    fn join_halves(&self, first: JoinHalf<'_>, second: JoinHalf<'_>) {
        stealing().join_halves(first, second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_needs_a_cpu_clock_and_less_than_half_the_wall_time() {
        let estimate = |cpu_share| Estimate {
            len: 100,
            item_cost: Duration::from_millis(1),
            cpu_share,
            for_helper: false,
        };
        assert!(matches!(
            estimate(Some(0.1)).choice(),
            Choice::Waiting { .. }
        ));
        assert_eq!(estimate(Some(0.6)).choice(), Choice::Stealing);
        assert_eq!(
            estimate(None).choice(),
            Choice::Stealing,
            "no CPU clock: assume the items compute"
        );
        for share in [None, Some(0.1), Some(0.9)] {
            let for_helper = Estimate {
                for_helper: true,
                ..estimate(share)
            };
            assert!(matches!(for_helper.choice(), Choice::HelperTaskPool { .. }));
        }
    }

    #[test]
    fn every_choice_survives_its_code() {
        for choice in [
            Choice::Inline,
            Choice::Stealing,
            Choice::Waiting {
                ntasks: waiting_tasks(),
            },
            helper_task_pool(),
            Choice::HelperStealing,
            helper_spare_core(),
        ] {
            assert_ne!(choice.code(), 0, "0 is no choice yet");
            assert_eq!(Choice::from_code(choice.code()), Some(choice));
        }
        assert_eq!(Choice::from_code(0), None);
    }

    #[test]
    fn asking_ahead_counts_each_fold_once() {
        let ex = AutoEx::new();
        let (inline, stealing) = (Choice::Inline.code(), Choice::Stealing.code());
        ex.state.shapes.learn(16, inline);
        ex.state.shapes.learn(1000, stealing);
        // A length that goes to a pool: asking counts nothing, `execute` counts the fold.
        for _ in 0..3 * MEASURE_EVERY {
            assert_eq!(ex.runs_inline(1000), RunsInline::No);
        }
        assert_eq!(ex.state.shapes.recall(1000), Recalled::Remembered(stealing));
        // An inline length: every fold, the one whose turn to be measured again has come
        // timed, and asked for again until what it took is learned.
        for _ in 1..MEASURE_EVERY {
            assert_eq!(ex.runs_inline(16), RunsInline::Yes);
        }
        assert_eq!(ex.runs_inline(16), RunsInline::Timed);
        assert_eq!(ex.runs_inline(16), RunsInline::Timed, "not reported yet");
        ex.ran_inline(16, Duration::from_nanos(20));
        for _ in 1..MEASURE_EVERY {
            assert_eq!(ex.runs_inline(16), RunsInline::Yes);
        }
        assert_eq!(ex.runs_inline(16), RunsInline::Timed);
        // A fold that took a wake-up: its length is forgotten, and measured from the start.
        ex.ran_inline(16, WAKE_UP);
        assert_eq!(ex.runs_inline(16), RunsInline::No);
        assert_eq!(ex.state.shapes.recall(16), Recalled::Unknown);
        assert_eq!(ex.runs_inline(17), RunsInline::No, "unknown");
    }

    #[test]
    fn huge_folds_do_not_overflow_and_empty_ones_run_inline() {
        let huge = Estimate {
            len: usize::MAX,
            item_cost: Duration::from_secs(u64::MAX / 2),
            cpu_share: Some(1.0),
            for_helper: false,
        };
        assert_eq!(huge.choice(), Choice::Stealing);
        let empty = Estimate { len: 0, ..huge };
        assert_eq!(empty.choice(), Choice::Inline);
    }
}
