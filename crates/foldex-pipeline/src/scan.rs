//! `scan`, the inclusive prefix combination of an indexable pipeline, in two passes: the total
//! of every block of [`BLOCK`] items, then each piece's outputs from the combined totals of the
//! blocks before it, written in place. A source whose items can be read once
//! ([`Source::HANDS_OUT_ONCE`]) is collected first, and the two passes run over the collected
//! items, each block rewritten in place.

use crate::indexed::ByRef;
use crate::pipeline::{IntoPipeline, Pipeline};
use crate::stage::Id;
use foldex_core::source::{RangeVisitor, Spent};
use foldex_core::{Executor, ExecutorExt, Source};
use std::ops::Range;

/// Items per block of the first pass. A piece of the second pass that starts inside a block
/// first combines the block's items before its start, so a piece of `m` items costs at most
/// `m + BLOCK - 1` combines: small next to the 4096 items a leaf folds between stop checks.
const BLOCK: usize = 256;

/// Combines the items of one range into `acc`, skipping nothing.
struct Total<'f, T, F> {
    acc: T,
    op: &'f F,
}

impl<T, F: Fn(&T, &T) -> T> RangeVisitor<T> for Total<'_, T, F> {
    type Output = T;
    fn visit<I: Iterator<Item = T>>(self, items: I) -> T {
        items.fold(self.acc, |acc, item| (self.op)(&acc, &item))
    }
}

/// The items `0..len` of the scan, each the combination of the source's items up to it.
struct Prefixes<'p, S: Source, F> {
    source: &'p S,
    op: &'p F,
    /// `before[b]`: the combination of every item before block `b`.
    before: Vec<S::Item>,
}

/// Combines `skip` leading items into `acc` without passing them on, then passes on the
/// running combination after each further item.
struct Running<'f, T, F, V> {
    skip: usize,
    acc: T,
    op: &'f F,
    visitor: V,
}

impl<T: Clone, F: Fn(&T, &T) -> T, V: RangeVisitor<T>> RangeVisitor<T> for Running<'_, T, F, V> {
    type Output = V::Output;
    fn visit<I: Iterator<Item = T>>(self, mut items: I) -> V::Output {
        let op = self.op;
        let mut acc = self.acc;
        for item in items.by_ref().take(self.skip) {
            acc = op(&acc, &item);
        }
        self.visitor.visit(items.scan(acc, |acc, item| {
            *acc = op(acc, &item);
            Some(acc.clone())
        }))
    }
}

impl<S, F> Source for Prefixes<'_, S, F>
where
    S: Source,
    S::Item: Clone + Send + Sync,
    F: Fn(&S::Item, &S::Item) -> S::Item + Sync,
{
    type Item = S::Item;

    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;

    fn len(&self) -> usize {
        self.source.len()
    }

    fn start_fold(&self) -> Result<(), Spent> {
        self.source.start_fold()
    }

    fn get(&self, index: usize) -> S::Item {
        let block = index / BLOCK;
        let visitor = Total {
            acc: self.before[block].clone(),
            op: self.op,
        };
        self.source.visit_range(block * BLOCK..index + 1, visitor)
    }

    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let block = range.start / BLOCK;
        let visitor = Running {
            skip: range.start - block * BLOCK,
            acc: self.before[block].clone(),
            op: self.op,
            visitor,
        };
        self.source.visit_range(block * BLOCK..range.end, visitor)
    }
}

impl<S: Source> Pipeline<S, Id> {
    /// The inclusive prefix combination: item `i` becomes the combination, with `op`, of
    /// `identity` and items `0..=i`, as `iter.scan(identity, |acc, x| { *acc = op(acc, &x);
    /// Some(acc.clone()) })` gives it. `op` must be associative and `identity` its identity
    /// (as for a reduction); then every executor gives the sequential result.
    ///
    /// Two passes over the items (each `op` call made about twice): the totals of blocks of
    /// 256 items, then the outputs, written in place. Over items that can be read once (a
    /// `Vec` by value, a mutable slice: [`Source::HANDS_OUT_ONCE`]), each item is read once,
    /// into the output, and the two passes run over the output. Only indexable pipelines have
    /// `scan`: a piece must know where it starts (see [`crate::stateful`]).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let running: Vec<u64> = (1..=5u64).pipe().scan(&ThreadedEx::new(), 0, |a, b| a + b);
    /// assert_eq!(running, [1, 3, 6, 10, 15]);
    /// ```
    pub fn scan<E, F>(&self, ex: &E, identity: S::Item, op: F) -> Vec<S::Item>
    where
        E: Executor + ?Sized,
        S::Item: Clone + Send + Sync,
        F: Fn(&S::Item, &S::Item) -> S::Item + Sync,
    {
        if S::HANDS_OUT_ONCE {
            // One fold reads each item, into the output; the passes read the output.
            let mut items = ex.collect_vec(ByRef(&self.source));
            scan_in_place(ex, &mut items, identity, &op);
            return items;
        }
        let len = self.source.len();
        let blocks = len.div_ceil(BLOCK);
        let totals: Vec<S::Item> = crate::from_source(0..blocks)
            .map(|block| {
                let range = block * BLOCK..((block + 1) * BLOCK).min(len);
                let visitor = Total {
                    acc: identity.clone(),
                    op: &op,
                };
                self.source.visit_range(range, visitor)
            })
            .collect(ex);
        ex.collect_vec(Prefixes {
            source: &self.source,
            op: &op,
            before: before_each(&totals, identity, &op),
        })
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
