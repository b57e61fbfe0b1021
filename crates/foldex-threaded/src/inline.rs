//! Which folds `ThreadedEx` runs inline under the automatic basesize: those of a length whose
//! last measured fold took less than a wake-up divided among the pool's threads.
//!
//! A fold of that length costs less on the caller than the hand-over to a worker (from outside)
//! or a fork and a combine (nested in a step), so the next ones of that length run whole on the
//! calling thread, through [`Executor::runs_inline`](foldex_core::Executor::runs_inline): the
//! typed layer then folds the items itself, with no job. One fold in [`MEASURE_EVERY`] of such
//! a length runs on the pool again and is timed, so that a length whose items grew goes back
//! to the pool.
//!
//! The lengths live in a [`ChoiceTable`]: each worker has its own (folds nested in steps,
//! where the same length comes back on every worker, must not share a cache line), and the
//! registry one for callers outside the pool.

use foldex_core::exec::{ChoiceTable, WAKE_UP};
use std::time::{Duration, Instant};

/// A length remembered inline runs on the pool again, timed, once in this many folds.
pub(crate) const MEASURE_EVERY: u8 = 16;

/// The choice code for "inline" in the tables.
const INLINE: u8 = 1;

/// The tables of a pool: one per worker and one for outside callers.
pub(crate) fn new_table() -> ChoiceTable {
    ChoiceTable::new(MEASURE_EVERY)
}

/// `true` when a fold of `len` whose caller's table is `table` should run inline: its length
/// was learned inline and this fold is not the one that measures it again (counted then; a fold
/// answered `false` is timed by `execute`, which learns its length again).
pub(crate) fn recall(table: &ChoiceTable, len: usize) -> bool {
    table.recall_as(len, INLINE)
}

/// Learns into `table` (the caller's) from a fold of `len` that the pool (of `threads`) ran
/// from `started` until now: a fold below a wake-up shared among the threads runs inline from
/// now on; a length learned so that took longer is forgotten.
pub(crate) fn learn(table: &ChoiceTable, len: usize, threads: usize, started: Instant) {
    let below = WAKE_UP / u32::try_from(threads.max(1)).unwrap_or(u32::MAX);
    if started.elapsed() < below.max(Duration::from_nanos(1)) {
        table.learn(len, INLINE);
    } else {
        table.forget(len);
    }
}
