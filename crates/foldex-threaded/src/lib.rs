//! [`ThreadedEx`]: the work-stealing executor, with `basesize`, on a [`Pool`] of worker threads.
//!
//! The default parallel executor, for CPU-bound and uneven work. A fold's range is halved down
//! to `basesize`; each right half stays pending on the current worker's stack until another
//! thread wants work (then the oldest pending half goes to the worker's deque, where it is
//! stolen), and the left half runs at once. Partials are combined in order up the tree, so any
//! associative `combine` gives the sequential result.
//! [`ExecutorExt::join`](foldex_core::ExecutorExt::join) forks the same way.
//!
//! ```
//! use foldex_core::ExecutorExt;
//! use foldex_threaded::ThreadedEx;
//!
//! let ex = ThreadedEx::new(); // the global pool, automatic basesize
//! let data: Vec<u64> = (1..=1_000_000).collect();
//! assert_eq!(ex.sum::<u64>(&data), 500_000_500_000);
//!
//! // Items of very different cost: split down to single items.
//! let per_item = ThreadedEx::new().basesize(1);
//! let total = per_item.map_reduce(0..64usize, |i| (0..i * 100).sum::<usize>(), || 0, |a, b| a +
//! b);
//! assert_eq!(total, (0..64usize).map(|i| (0..i * 100).sum::<usize>()).sum::<usize>());
//! ```
//!
//! # Design notes
//!
//! **Scheduling.** Each worker owns a crossbeam-deque `Worker` (LIFO for its owner, so a worker
//! runs the halves it just forked while their data is hot; FIFO for thieves, so a thief takes the
//! oldest, largest half). Thieves probe the other deques from a random start, then the `Injector`,
//! through which calls from outside the pool enter. A fork is a
//! [`foldex_core::exec::join_pending`] on the worker's [`PendingForks`](foldex_core::exec::PendingForks):
//! the right half, its result slot and its latch live on the forking frame, and the fork is a
//! record on the worker's own list; the worker hands its *oldest* pending fork (the largest piece
//! it holds) to its deque, where thieves take it, and otherwise runs the right half inline after
//! the left, with no synchronisation at all, as the sequential program would. When it hands
//! forks over depends on how the fold started:
//! - a fold that starts while some thread wants work (a fold from outside, taken by a worker
//!   while others are idle) or for a loader's epoch (`Caller::StandsIn`, whose turns run until
//!   the epoch ends) hands one over at every fork: its few, large pieces are there for thieves
//!   at once, as in classic work stealing;
//! - a fold that starts on a worker while no thread wants work (nested in a step of a fold that
//!   keeps every worker busy), and every `join`, hand one over only when, at a fork, some thread
//!   wants work (three relaxed loads: a worker idle or looking for work, a worker waiting for a
//!   stolen half with nothing to run, a helper from outside that found nothing) and the deque is
//!   empty, at most once per 50 µs per worker (the clock is read only while a thread wants
//!   work), so that a thread that wants work while every piece left is small is not handed them
//!   one by one. This is lazy task creation with heartbeat scheduling's promotion, driven by
//!   demand instead of a timer (docs/architecture.md compares them). Such a fold is split once under the
//!   automatic basesize, and splits further only where a half is stolen.
//!
//! A half handed over that nobody took is popped back and run inline; one that was stolen is
//! waited for by running other tasks until the fork's latch is set. That help
//! loop is also why a fold nested in a fold on the same pool cannot deadlock: the waiting worker
//! runs the very tasks it waits for if nobody else has taken them. Tasks it takes that way run
//! their leaves through `Job::run_while_waiting` (they must not block on anything outside their
//! fold, since the frame below cannot resume before they return), and a worker stacks at most 32
//! stolen tasks so: beyond that it only takes back its own halves.
//!
//! **Folds too small to share.** Under the automatic basesize, each fold is timed where the pool
//! runs it, and a length whose fold took less than a wake-up shared among the threads runs
//! inline from then on, through [`Executor::runs_inline`](foldex_core::Executor::runs_inline):
//! the typed layer folds the items on the caller with no job at all, which is what makes a fold
//! nested in a step cost about its loop. Each worker keeps its own table of such lengths (folds
//! nested in steps bring the same length to every worker), and the registry one for callers
//! outside the pool; one fold in 16 of a remembered length is timed, still inline
//! ([`RunsInline::Timed`](foldex_core::RunsInline::Timed)), and a length whose fold took longer
//! is forgotten, so that its next fold runs on the pool, timed, again.
//!
//! **Calls from outside.** A caller from outside the pool, a worker of another pool included,
//! offers the whole range as one task ([`foldex_core::exec::offer`]) and blocks. If every worker
//! stays busy and none has started the task, the caller takes it back and runs it as one leaf
//! itself: the workers may be blocked on this very thread (pools folding into each other, a
//! `FoldHandle` joined inside a step, a loader's producers waiting for its consumer), and the
//! caller never waits for work that nobody has started. It does not run its own pool's tasks while
//! it waits, so waits across pools never stack up on a thread (tested in `tests/pool.rs` and the
//! nesting matrix of the `foldex` crate).
//!
//! **Helping from outside.** [`Executor::help`](foldex_core::Executor::help) called by a thread
//! outside the pool (a loader's consumer with an empty buffer) takes only a task that a worker
//! shared, and only while every worker is busy (one that finds none asks the workers to share a
//! pending fork at their next fork); never a fold still waiting in the injector for the
//! workers, nor a task a worker that is looking for work (or was woken for it) is about to take. It
//! runs its range as one leaf, however long: it has no deque, so halves it forked could only be
//! waited for, perhaps on workers that are themselves blocked until this thread returns. So `help`
//! never forks and never blocks on anyone.
//!
//! **Early stop and panics.** `job.is_stopped(start)` is checked before every split, so once a
//! `Break` or a panic is seen nothing to its right is split or scheduled further; pieces already
//! created still go through `job.run`, which returns at once for a stopped range, so every piece
//! yields its partial and the combine tree stays whole. Panics never unwind through the pool: the
//! typed layer catches them in `run`/`combine`, and `TaskRef::run` catches anything else and
//! re-raises it on the forking frame after its latch is set.
//!
//! **Sleep and wake.** Idle workers spin for a while, then park; a push wakes one only when someone
//! is idle, so a busy pool pays one fence and one load per fork and an idle pool uses no CPU. The
//! protocol, and why no wake-up is lost, is told in `registry/sleep.rs` and model-checked in
//! `tests/loom.rs`; the spin length is `SPIN_ROUNDS` in `registry.rs`.
//!
//! **Where the code is.** `pool.rs` (and `pool/builder.rs`) hold the public [`Pool`] handle and
//! its settings; `registry.rs` and `registry/` the machinery behind it: the worker threads and
//! their loop, the deques and the injector, a waiting thread's help loop, and the sleep;
//! `executor.rs` and `splitter.rs` the fold's halving on top of them.
//!
//! **Default basesize.** [`Basesize::Auto`](foldex_core::Basesize::Auto) starts from `len / (4 ×
//! threads)`, four leaves per worker, and adapts as rayon's splitter does: a range that a worker
//! steals (runs on another worker than the one that forked it) may be halved again into `2 ×
//! threads` pieces, never below `len / (64 × threads)`. Fixed leaves cannot balance uneven work,
//! and more leaves for everyone cost forks on even work; splitting on theft lets the workers that
//! are free take the balance on (docs/benchmarks.md has the measurements). `basesize(1)` costs
//! about one fork per item, for items that each take far longer than a fork; a fixed basesize is a
//! plain floor and never adapts.
#![forbid(unsafe_code)]

mod depth_first;
mod error;
mod executor;
mod inline;
mod pool;
mod registry;
mod splitter;
mod waiting;

pub use depth_first::DepthFirstEx;
pub use error::PoolError;
pub use executor::ThreadedEx;
pub use pool::builder::{default_threads, PoolBuilder, MAX_THREADS, NUM_THREADS_VAR};
pub use pool::Pool;
#[cfg(loom)]
#[doc(hidden)]
pub use registry::sleep;
