//! `scan`, the inclusive prefix combination of an indexable pipeline: one fold reads each item
//! once, into the output (written in place, [`ExecutorExt::collect_vec`]), then two passes run
//! over the output: the total of every block of [`BLOCK`] items, then each block rewritten from
//! the combined totals of the blocks before it. So a `map` (or any source) before `scan` is
//! evaluated exactly once per item, as `Iterator::scan` evaluates it, and the memory beyond
//! the output is two values per block (its total, and the combination before it).

use crate::indexed::ByRef;
use crate::pipeline::{IntoPipeline, Pipeline};
use crate::stage::Id;
use foldex_core::{Executor, ExecutorExt, Source};

/// Items per block of the two passes over the output: a block is rewritten by one piece, so
/// the number of totals is `len / BLOCK`, small next to the output.
const BLOCK: usize = 256;

impl<S: Source> Pipeline<S, Id> {
    /// The inclusive prefix combination: item `i` becomes the combination, with `op`, of
    /// `identity` and items `0..=i`, as `iter.scan(identity, |acc, x| { *acc = op(acc, &x);
    /// Some(acc.clone()) })` gives it. `op` must be associative and `identity` its identity
    /// (as for a reduction); then every executor gives the sequential result.
    ///
    /// Each item is read once (a `map` before `scan` runs once per item, as in `std`), into the
    /// output; then two passes over the output (each `op` call made about twice): the totals
    /// of blocks of 256 items, then the outputs, written in place. Over items that can be read
    /// once (a `Vec` by value, a mutable slice: [`Source::HANDS_OUT_ONCE`]) a second `scan`
    /// panics as a second run of any reduction does. Only indexable pipelines have `scan`: a
    /// piece must know where it starts (see [`crate::stateful`]).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let running: Vec<u64> = (1..6u64).pipe().scan(&ThreadedEx::new(), 0, |a, b| a + b);
    /// assert_eq!(running, [1, 3, 6, 10, 15]);
    /// ```
    pub fn scan<E, F>(&self, ex: &E, identity: S::Item, op: F) -> Vec<S::Item>
    where
        E: Executor + ?Sized,
        S::Item: Clone + Send + Sync,
        F: Fn(&S::Item, &S::Item) -> S::Item + Sync,
    {
        let mut items = ex.collect_vec(ByRef(&self.source));
        scan_in_place(ex, &mut items, identity, &op);
        items
    }
}

/// `before[b]`: the combination of `identity` and `totals[..b]`.
fn before_each<T, F: Fn(&T, &T) -> T>(totals: &[T], identity: T, op: &F) -> Vec<T> {
    let mut before = Vec::with_capacity(totals.len());
    let mut acc = identity;
    for total in totals {
        let next = op(&acc, total);
        before.push(std::mem::replace(&mut acc, next));
    }
    before
}

/// Replaces item `i` of `items` with the combination of `identity` and items `0..=i`: the total
/// of every block of [`BLOCK`] items, then each block rewritten from the combined totals of the
/// blocks before it.
fn scan_in_place<E, T, F>(ex: &E, items: &mut [T], identity: T, op: &F)
where
    E: Executor + ?Sized,
    T: Clone + Send + Sync,
    F: Fn(&T, &T) -> T + Sync,
{
    let totals: Vec<T> = (&*items)
        .pipe()
        .chunks(BLOCK)
        .map(|block| block.iter().fold(identity.clone(), |acc, x| op(&acc, x)))
        .collect(ex);
    let before = before_each(&totals, identity, op);
    (&mut *items)
        .pipe()
        .chunks_mut(BLOCK)
        .enumerate()
        .for_each(ex, |(b, block)| {
            let mut last = &before[b];
            for item in block {
                *item = op(last, item);
                last = item;
            }
        });
}
