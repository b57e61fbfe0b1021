//! Ranges that may hold more than `usize::MAX` items: every range of `u128` and `i128`
//! (`0..10u128.pow(27)`), and the inclusive ranges of `u64`, `i64`, `usize` and `isize`
//! (`0..=u64::MAX` holds `usize::MAX + 1` items). A pipeline over one ([`Wide`]) is not
//! indexable, as rayon's ranges of these types are not, so `len`, `enumerate`, `zip`, `rev`,
//! `skip`, `take` and the other index-preserving adapters do not compile on it: `map`
//! ([`WideMap`], a trait, so that `(0..10).pipe().map(..)` still infers its type), transforms
//! (`filter`, `filter_map`, `flat_map`, `take_while`, ...) and every reduction do. An exclusive
//! range of `u64`, `i64` or `isize` holds at most `usize::MAX` items, and is indexable.
//!
//! A run folds the range as consecutive blocks of at most `usize::MAX / 2` items, each an
//! indexable [`Ints`] folded on the executor as any source is, one after the other, joined with
//! the reduction's `combine`: a `Break` in a block ends the run there, so `find_first`, `any`
//! and `all` stop at the first decisive item, and `find_last` (whose run goes backwards, from
//! the last block) at the last match. A range of at most `usize::MAX` items is one block, and
//! indexable inside (a `Vec` is collected in place). A run through stages that hold items at a
//! piece's edge (`dedup`, `unique`, `skip_while`) pulls a long range as a stream.

use crate::guarded::{guard_stream, Guarded, GuardedSource};
use crate::indexed::{ByRef, Rev};
use crate::pipeline::{IntoPipeline, Pipeline};
use crate::sources::Ints;
use crate::streamed::PipeSource;
use crate::transform::{Id, MapStage, Then, Xf};
use foldex_core::codec::Init;
use foldex_core::{Codec, Executor, ExecutorExt, Source, StopProbe, Stream};
use std::ops::{ControlFlow, Range, RangeInclusive};

/// The most items in one block of a run over a [`Wide`] range.
const BLOCK: u128 = (usize::MAX / 2) as u128;

/// A range which may hold more than `usize::MAX` items: the source of `(a..b).pipe()` and
/// `(a..=b).pipe()` for `u128` and `i128`, and of `(a..=b).pipe()` for `u64`, `i64`, `usize`
/// and `isize` (the module doc of `wide.rs` says how it runs).
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_threaded::ThreadedEx;
/// let ex = ThreadedEx::new();
/// let big = 10u128.pow(27);
/// assert_eq!((0..big).pipe().find_first(&ex, |x| x % 1000 == 999), Some(999));
/// assert_eq!((0..big).pipe().find_last(&ex, |x| x % 1000 == 1), Some(big - 999));
/// let small = (0..big).pipe().take_while(|&x| x < 1000).filter(|x| x % 7 == 0);
/// assert_eq!(small.map(|x| x / 7).max(&ex), Some(142));
/// // The 2^64 items of `u64`, and of `i64`:
/// assert_eq!((0..=u64::MAX).pipe().find_last(&ex, |x| x % 1000 == 1), Some(u64::MAX - 614));
/// assert!((i64::MIN..=i64::MAX).pipe().any(&ex, |x| x == i64::MIN + 7));
/// ```
///
/// What needs an index does not compile on it:
///
/// ```compile_fail
/// use foldex_pipeline::IntoPipeline;
/// let n = (0..10u128.pow(27)).pipe().len();
/// ```
///
/// ```compile_fail
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// let v: Vec<(usize, u128)> = (0..5u128).pipe().enumerate().collect(&SequentialEx);
/// ```
///
/// An inclusive `u64` range neither, even a short one (its type says nothing of its length):
///
/// ```compile_fail
/// use foldex_pipeline::IntoPipeline;
/// let n = (0..=5u64).pipe().len();
/// ```
///
/// ```compile_fail
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// let v: Vec<(usize, u64)> = (0..=5u64).pipe().enumerate().collect(&SequentialEx);
/// ```
///
/// An exclusive one, which holds at most `usize::MAX` items, is indexable:
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// assert_eq!((0..6u64).pipe().len(), 6);
/// let v: Vec<(usize, u64)> = (0..6u64).pipe().enumerate().collect(&SequentialEx);
/// assert_eq!(v[5], (5, 5));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Wide<T> {
    /// The first item.
    first: T,
    /// The last item's offset from the first; `None` for an empty range.
    span: Option<u128>,
    /// The range as one indexable source, where it holds at most `usize::MAX` items.
    fits: Option<Ints<T>>,
    /// The most items in one block of a run: [`BLOCK`] (less in this file's tests).
    block: u128,
}

/// An integer type whose ranges are [`Wide`].
pub trait WideInt: Copy + Send + Sync + 'static {
    /// The item `offset` places after `self`.
    fn after(self, offset: u128) -> Self;
    /// How far `last` is after `self` (`self <= last`).
    fn span_to(self, last: Self) -> u128;
}

/// `WideInt` for each type, with `$u` the unsigned type of its width: an offset from one item
/// to another is below `2^width`, so truncating it to the type and adding with wrapping gives
/// the true item, and the wrapping difference read as unsigned is the true span.
macro_rules! wide_ints {
    ($($t:ty as $u:ty),*) => {$(
        impl WideInt for $t {
            #[inline]
            fn after(self, offset: u128) -> $t {
                self.wrapping_add(offset as $t)
            }

            #[inline]
            fn span_to(self, last: $t) -> u128 {
                last.wrapping_sub(self) as $u as u128
            }
        }
    )*};
}

wide_ints!(
    u128 as u128,
    i128 as u128,
    u64 as u64,
    i64 as u64,
    usize as usize,
    isize as usize
);

impl<T: WideInt> Wide<T> {
    /// The items `first..=last`; none when `last` is `None`.
    fn inclusive(first: T, last: Option<T>) -> Self {
        let span = last.map(|last| first.span_to(last));
        let len = match span {
            None => Some(0),
            Some(span) => usize::try_from(span).ok().and_then(|s| s.checked_add(1)),
        };
        Wide {
            first,
            span,
            fits: len.map(|len| Ints { start: first, len }),
            block: BLOCK,
        }
    }

    /// The range's blocks, from the first or (`backwards`) from the last.
    fn blocks(&self, backwards: bool) -> impl Iterator<Item = Ints<T>> + '_ {
        // The next block's first offset going forwards, its last going backwards.
        let mut next = self.span.map(|span| if backwards { span } else { 0 });
        std::iter::from_fn(move || {
            let span = self.span?;
            let at = next?;
            let (low, len) = if backwards {
                let len = at.min(self.block - 1) + 1;
                let low = at - (len - 1);
                next = low.checked_sub(1);
                (low, len)
            } else {
                let len = (span - at).min(self.block - 1) + 1;
                next = at.checked_add(len).filter(|&n| n <= span);
                (at, len)
            };
            let len = usize::try_from(len).expect("a block holds at most usize::MAX / 2 items");
            Some(Ints {
                start: self.first.after(low),
                len,
            })
        })
    }

    /// The items in order, as an iterator.
    fn iter(&self) -> WideIter<T> {
        WideIter {
            first: self.first,
            next: self.span.map(|_| 0),
            span: self.span.unwrap_or(0),
        }
    }
}

/// The items of a [`Wide`] range in order, pulled as a stream.
#[doc(hidden)]
#[derive(Debug)]
pub struct WideIter<T> {
    first: T,
    next: Option<u128>,
    span: u128,
}

impl<T: WideInt> Iterator for WideIter<T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let at = self.next?;
        self.next = at.checked_add(1).filter(|&n| n <= self.span);
        Some(self.first.after(at))
    }
}

/// A fold's `init`, lent to the fold of each block.
struct Lent<'i, I>(&'i I);

impl<A, I: Init<A>> Init<A> for Lent<'_, I> {
    #[inline]
    fn init(&self) -> A {
        self.0.init()
    }

    #[inline]
    fn codec(&self) -> Option<&dyn Codec<A>> {
        self.0.codec()
    }
}

impl<T: WideInt> PipeSource for Wide<T>
where
    Ints<T>: Source<Item = T>,
{
    type Item = T;
    type Input<'p> = Stream<WideIter<T>>;

    fn input(&self) -> Stream<WideIter<T>> {
        Stream::new(self.iter())
    }

    type Guarded<'p> = Stream<Guarded<WideIter<T>>>;

    fn guarded_input(&self) -> Stream<Guarded<WideIter<T>>> {
        guard_stream(self.input())
    }

    type Indexed = Ints<T>;

    fn as_indexed(&self) -> Option<&Ints<T>> {
        self.fits.as_ref()
    }

    fn runs_backwards(&self) -> bool {
        true
    }

    /// One block after another, joined with `combine`; a `Break` ends the run.
    fn try_fold_items<E, A, I, F, C>(
        &self,
        ex: &E,
        backwards: bool,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, T, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        let mut done: Option<A> = None;
        for block in self.blocks(backwards) {
            let (init, step, combine) = (Lent(&init), &step, &combine);
            let flow = match backwards {
                false => ex.try_fold_probed(block, init, step, combine),
                true => ex.try_fold_probed(Rev(block), init, step, combine),
            };
            let broke = flow.is_break();
            let (ControlFlow::Continue(acc) | ControlFlow::Break(acc)) = flow;
            let acc = match done.take() {
                Some(left) => combine(left, acc),
                None => acc,
            };
            if broke {
                return ControlFlow::Break(acc);
            }
            done = Some(acc);
        }
        ControlFlow::Continue(done.unwrap_or_else(|| init.init()))
    }

    fn fold_items<E, A, I, F, C>(&self, ex: &E, backwards: bool, init: I, step: F, combine: C) -> A
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, T) -> A + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        let mut done: Option<A> = None;
        for block in self.blocks(backwards) {
            let (init, step, combine) = (Lent(&init), &step, &combine);
            let acc = match backwards {
                false => ex.fold(block, init, step, combine),
                true => ex.fold(Rev(block), init, step, combine),
            };
            done = Some(match done.take() {
                Some(left) => combine(left, acc),
                None => acc,
            });
        }
        done.unwrap_or_else(|| init.init())
    }

    fn try_fold_guarded<E, A, I, F, C>(
        &self,
        ex: &E,
        init: I,
        step: F,
        combine: C,
    ) -> ControlFlow<A, A>
    where
        E: Executor + ?Sized,
        A: Send,
        I: Init<A>,
        F: Fn(A, crate::guarded::Positioned<T>, &StopProbe) -> ControlFlow<A, A> + Sync,
        C: Fn(A, A) -> A + Sync,
    {
        match &self.fits {
            Some(ints) => ex.try_fold_probed(GuardedSource(ByRef(ints)), init, step, combine),
            None => ex.try_fold_probed(self.guarded_input(), init, step, combine),
        }
    }
}

/// `map` as the first stage of a pipeline over a [`Wide`] range, as rayon
/// maps such a range: each item mapped as the range's blocks are folded (a search still stops
/// early, from either end). The map is a stage, as after `filter`, so the `map`s after it are
/// the ordinary ones.
///
/// A trait rather than an inherent method: a pipeline without stages has one inherent `map`,
/// the indexable pipelines', so that `(0..10).pipe().map(..)` still infers its integer type
/// (two inherent `map`s made it ambiguous, E0034). Bring it into scope with
/// `use foldex_pipeline::adapters::WideMap` (foldex's prelude has it); rustc names it where it
/// is missing.
///
/// ```
/// use foldex_pipeline::adapters::WideMap;
/// use foldex_pipeline::IntoPipeline;
/// use foldex_threaded::ThreadedEx;
/// let ex = ThreadedEx::new();
/// let big = 10u128.pow(27);
/// let halves = (0..big).pipe().map(|x| x / 2).map(|x| x + 1);
/// assert_eq!(halves.find_last(&ex, |x| x % 1000 == 7), Some(big / 2 - 993));
/// // The 2^64 items of `0..=u64::MAX`, one more than an indexable range can hold:
/// let all = (0..=u64::MAX).pipe().map(|x| x.wrapping_mul(3));
/// assert_eq!(all.find_last(&ex, |x| x % 10 == 3), Some(u64::MAX - 2));
/// // With the trait in scope, a range of literals still takes the indexable `map`:
/// let hit = (0..1_000_000).pipe().map(|x| x as u64 * 7).find_first(&ex, |x| x % 1000 == 999);
/// assert_eq!(hit, Some(5999));
/// ```
pub trait WideMap: Sized {
    /// The integer type of the range.
    type Int;
    /// The pipeline's codec ([`Pipeline::encoded`]).
    type Codec;

    /// Each item becomes `f(item)`.
    #[allow(clippy::type_complexity)]
    fn map<R, F>(self, f: F) -> Pipeline<Wide<Self::Int>, Xf<Then<Id, MapStage<F>>>, Self::Codec>
    where
        F: Fn(Self::Int) -> R + Sync;
}

impl<T: WideInt, K> WideMap for Pipeline<Wide<T>, Id, K> {
    type Int = T;
    type Codec = K;

    fn map<R, F>(self, f: F) -> Pipeline<Wide<T>, Xf<Then<Id, MapStage<F>>>, K>
    where
        F: Fn(T) -> R + Sync,
    {
        Pipeline {
            source: self.source,
            transform: Xf(Then(Id, MapStage(f))),
            codec: self.codec,
        }
    }
}

/// `a..b` and `a..=b` of each type as a pipeline over [`Wide`].
macro_rules! wide_ranges {
    ($($t:ty),*) => {$(
        impl IntoPipeline for Range<$t> {
            type Source = Wide<$t>;
            fn pipe(self) -> Pipeline<Wide<$t>> {
                let last = (self.start < self.end).then(|| self.end - 1);
                from_wide(Wide::inclusive(self.start, last))
            }
        }

        wide_inclusive_ranges!($t);
    )*};
}

/// `a..=b` of each type as a pipeline over [`Wide`].
macro_rules! wide_inclusive_ranges {
    ($($t:ty),*) => {$(
        impl IntoPipeline for RangeInclusive<$t> {
            type Source = Wide<$t>;
            fn pipe(self) -> Pipeline<Wide<$t>> {
                let last = (!self.is_empty()).then(|| *self.end());
                from_wide(Wide::inclusive(*self.start(), last))
            }
        }
    )*};
}

wide_ranges!(u128, i128);
// An exclusive range of these types holds at most `usize::MAX` items, and is indexable
// (sources.rs); an inclusive one may hold one more, as `0..=u64::MAX` does.
wide_inclusive_ranges!(u64, i64, usize, isize);

fn from_wide<T>(source: Wide<T>) -> Pipeline<Wide<T>> {
    Pipeline {
        source,
        transform: Id,
        codec: None,
    }
}

#[cfg(test)]
mod tests {
    //! Runs over ranges cut into blocks of a few items, so that every way across a block's
    //! edge is exercised at lengths a test can fold.

    use super::*;
    use foldex_core::Basesize;
    use foldex_seq::SequentialEx;
    use foldex_threaded::ThreadedEx;
    use std::num::NonZeroUsize;

    fn executors() -> Vec<Box<dyn Executor>> {
        let fixed = |n| Basesize::Fixed(NonZeroUsize::new(n).unwrap());
        vec![
            Box::new(SequentialEx),
            Box::new(ThreadedEx::new().threads(2).with_basesize(fixed(1))),
            Box::new(ThreadedEx::new().threads(2).with_basesize(fixed(3))),
        ]
    }

    /// `first..=last` in blocks of `block` items.
    fn cut<T: WideInt>(first: T, last: Option<T>, block: u128) -> Pipeline<Wide<T>> {
        from_wide(Wide {
            block,
            ..Wide::inclusive(first, last)
        })
    }

    #[test]
    fn blocks_cover_the_range_in_order() {
        for block in [1, 2, 7] {
            for len in [0u128, 1, 2, 6, 7, 8, 23] {
                let start = u128::MAX - len.max(1) + 1;
                let want: Vec<u128> = (start..=u128::MAX).take(len as usize).collect();
                let wide = cut(start, (len > 0).then_some(u128::MAX), block).source;
                let forwards: Vec<u128> = wide.blocks(false).flat_map(items).collect();
                assert_eq!(forwards, want, "block {block}, len {len}");
                let mut backwards: Vec<Ints<u128>> = wide.blocks(true).collect();
                backwards.reverse();
                let backwards: Vec<u128> = backwards.into_iter().flat_map(items).collect();
                assert_eq!(backwards, want, "block {block}, len {len}");
                assert!(wide.blocks(true).all(|b| b.len <= block as usize));
                let streamed: Vec<u128> = wide.iter().collect();
                assert_eq!(streamed, want, "stream: block {block}, len {len}");
            }
        }
    }

    /// `first..=last` of a 64-bit type, forwards and backwards in blocks, and reduced across
    /// their edges, against std: the offsets of `WideInt` for the narrower types.
    fn covers<T>(first: T, last: T)
    where
        T: WideInt + std::fmt::Debug + Ord,
        Ints<T>: Source<Item = T>,
        RangeInclusive<T>: Iterator<Item = T>,
    {
        let want: Vec<T> = (first..=last).collect();
        let items = |b: Ints<T>| (0..b.len).map(move |i| b.get(i));
        for block in [1, 2, 7] {
            let wide = cut(first, Some(last), block).source;
            let forwards: Vec<T> = wide.blocks(false).flat_map(items).collect();
            assert_eq!(forwards, want, "{first:?}..={last:?}, block {block}");
            let mut backwards: Vec<Ints<T>> = wide.blocks(true).collect();
            backwards.reverse();
            let backwards: Vec<T> = backwards.into_iter().flat_map(items).collect();
            assert_eq!(backwards, want, "{first:?}..={last:?}, block {block}");
            for ex in executors() {
                let wide = cut(first, Some(last), block);
                let got: Vec<T> = wide.collect(&*ex);
                assert_eq!(got, want, "{first:?}..={last:?}, block {block}");
                let (min, max) = (wide.min(&*ex), wide.max(&*ex));
                assert_eq!((min, max), (Some(first), Some(last)), "block {block}");
                let third = want[want.len() / 3];
                let hit = |x: &T| *x <= third;
                assert_eq!(wide.find_last(&*ex, hit), Some(third), "block {block}");
                assert_eq!(wide.find_first(&*ex, |x| *x >= third), Some(third));
            }
        }
    }

    #[test]
    fn blocks_of_64_bit_ranges_cover_them_in_order() {
        covers(i64::MIN, i64::MIN + 9);
        covers(-5i64, 5);
        covers(i64::MAX - 9, i64::MAX);
        covers(u64::MAX - 9, u64::MAX);
        covers(0u64, 9);
        covers(isize::MIN, isize::MIN + 9);
        covers(-4isize, 4);
        covers(usize::MAX - 9, usize::MAX);
    }

    fn items(block: Ints<u128>) -> Vec<u128> {
        (0..block.len).map(|i| block.get(i)).collect()
    }

    #[test]
    fn reductions_across_blocks_match_std() {
        for ex in executors() {
            let ex = &*ex;
            for block in [1, 3, 7] {
                for len in [0i128, 1, 2, 7, 31] {
                    let first = i128::MIN + 5;
                    let last = (len > 0).then(|| first + len - 1);
                    let std = || (0..len).map(|k| first + k);
                    let wide = || cut(first, last, block);
                    let what = format!("block {block}, len {len}");
                    let hit = |x: &i128| x.rem_euclid(5) == 2;
                    assert_eq!(wide().find_first(ex, hit), std().find(hit), "{what}");
                    assert_eq!(wide().find_last(ex, hit), std().rfind(hit), "{what}");
                    assert_eq!(wide().count(ex), std().count(), "{what}");
                    let got: Vec<i128> = wide().collect(ex);
                    assert_eq!(got, std().collect::<Vec<_>>(), "{what}");
                    let up = |x: i128| (x - first) * 3;
                    let got = wide().filter(|x| x % 2 == 0).map(up).sum::<i128>(ex);
                    let want: i128 = std().filter(|x| x % 2 == 0).map(up).sum();
                    assert_eq!(got, want, "{what}");
                    // `map` as the first stages, across the blocks' edges.
                    let got: Vec<i128> = wide().map(up).collect(ex);
                    assert_eq!(got, std().map(up).collect::<Vec<_>>(), "{what}");
                    let twice = |x: i128| x / 2;
                    let got = wide().map(up).map(twice).find_last(ex, |x| x % 4 == 1);
                    let want = std().map(up).map(twice).rfind(|x| x % 4 == 1);
                    assert_eq!(got, want, "{what}");
                    let got = wide().map(up).find_first(ex, |x| x % 4 == 1);
                    assert_eq!(got, std().map(up).find(|x| x % 4 == 1), "{what}");
                    let got: Vec<i128> = wide().map(twice).dedup().collect(ex);
                    let mut want: Vec<i128> = std().map(twice).collect();
                    want.dedup();
                    assert_eq!(got, want, "{what}");
                    let got = wide().position_last(ex, |x| hit(&x));
                    assert_eq!(
                        got,
                        std().collect::<Vec<_>>().iter().rposition(hit),
                        "{what}"
                    );
                    let got: Vec<i128> = wide().filter_map(|x| Some(x / 3)).dedup().collect(ex);
                    let mut want: Vec<i128> = std().map(|x| x / 3).collect();
                    want.dedup();
                    assert_eq!(got, want, "{what}");
                    let got: Vec<i128> = wide().skip_while(|x| hit(x)).collect(ex);
                    assert_eq!(got, std().skip_while(hit).collect::<Vec<_>>(), "{what}");
                    let step = |acc: i128, x: i128| match hit(&x) {
                        true => ControlFlow::Break(acc),
                        false => ControlFlow::Continue(acc + x),
                    };
                    let got = wide().try_fold(ex, || 0, step, |a, b| a + b);
                    assert_eq!(got, std().try_fold(0, step), "{what}");
                }
            }
        }
    }
}
