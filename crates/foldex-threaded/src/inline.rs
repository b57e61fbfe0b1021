//! Which folds `ThreadedEx` runs inline under the automatic basesize: those of a length whose
//! last measured fold took less than a wake-up divided among the pool's threads.
//!
//! A fold of that length costs less on the caller than the hand-over to a worker (from outside)
//! or a fork and a combine (nested in a step), so the next ones of that length run whole on the
//! calling thread, through [`Executor::runs_inline`](foldex_core::Executor::runs_inline): the
//! typed layer then folds the items itself, with no job. One fold in [`MEASURE_EVERY`] of such
//! a length is timed ([`RunsInline::Timed`]: still inline, with no job, the typed layer
//! reporting what it took to [`Executor::ran_inline`](foldex_core::Executor::ran_inline)), so
//! that a length whose items grew goes back to the pool: a fold that took a wake-up shared
//! among the threads or more forgets its length, and the next fold of it runs on the pool,
//! timed, as a fold of a length never seen does. A timed fold that stopped early (a `Break`)
//! or panicked is not reported, and the next fold of its length is timed again.
//!
//! The lengths live in a [`ChoiceTable`]: each worker has its own (folds nested in steps,
//! where the same length comes back on every worker, must not share a cache line), and the
//! registry one for callers outside the pool.

use foldex_core::exec::{ChoiceTable, Recalled, WAKE_UP};
use foldex_core::RunsInline;
use std::time::Duration;

/// A length remembered inline is timed once in this many folds.
pub(crate) const MEASURE_EVERY: u8 = 16;

/// The choice code for "inline" in the tables.
const INLINE: u8 = 1;

/// The tables of a pool: one per worker and one for outside callers.
pub(crate) fn new_table() -> ChoiceTable {
    ChoiceTable::new(MEASURE_EVERY)
}

/// How a fold of `len` whose caller's table is `table` runs: [`RunsInline::Yes`] (counted)
/// when its length was learned inline, [`RunsInline::Timed`] when it is that length's turn to
/// be measured again (its time is learned by [`learn`]), and [`RunsInline::No`] for a length
/// not learned inline (`execute` times it on the pool and learns from it).
pub(crate) fn recall(table: &ChoiceTable, len: usize) -> RunsInline {
    match table.recall_as(len, INLINE) {
        Recalled::Remembered(INLINE) => RunsInline::Yes,
        Recalled::MeasureAgain(INLINE) => RunsInline::Timed,
        _ => RunsInline::No,
    }
}

/// Learns into `table` (the caller's) from a whole fold of `len` that took `took`, on the pool
/// (of `threads`) or timed inline: a fold below a wake-up shared among the threads runs inline
/// from now on; a length that took longer is forgotten.
pub(crate) fn learn(table: &ChoiceTable, len: usize, threads: usize, took: Duration) {
    let below = WAKE_UP / u32::try_from(threads.max(1)).unwrap_or(u32::MAX);
    if took < below.max(Duration::from_nanos(1)) {
        table.learn(len, INLINE);
    } else {
        table.forget(len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_learned_inline_is_timed_at_its_turn_and_learned_again_or_forgotten() {
        let table = new_table();
        assert_eq!(recall(&table, 16), RunsInline::No);
        learn(&table, 16, 2, Duration::from_nanos(50));
        for _ in 1..MEASURE_EVERY {
            assert_eq!(recall(&table, 16), RunsInline::Yes);
        }
        assert_eq!(recall(&table, 16), RunsInline::Timed);
        assert_eq!(recall(&table, 16), RunsInline::Timed, "until learned");
        learn(&table, 16, 2, Duration::from_nanos(50));
        assert_eq!(recall(&table, 16), RunsInline::Yes);
        // Half a wake-up on two threads is too long.
        learn(&table, 16, 2, WAKE_UP / 2);
        assert_eq!(recall(&table, 16), RunsInline::No);
        assert_eq!(table.recall(16), Recalled::Unknown);
    }
}
