//! Reducers: a reduction described once (an empty partial, how an item is added, how a later
//! partial is appended) and run by [`Pipeline::reduce_all`](crate::Pipeline::reduce_all),
//! alone or several in one pass over the data (a tuple of reducers, Transducers.jl's `TeeRF`
//! and `ProductRF`), and per group by [`Pipeline::group_by`](crate::Pipeline::group_by).
//!
//! ```
//! use foldex_pipeline::IntoPipeline;
//! use foldex_pipeline::reducers::{count, max, min, sum};
//! use foldex_threaded::ThreadedEx;
//! let data = [3u64, 9, 1, 4];
//! let (n, total, least, most) = data.pipe().copied().reduce_all(&ThreadedEx::new(), (count(), sum::<u64>(), min(), max()));
//! assert_eq!((n, total, least, most), (4, 17, Some(1), Some(9)));
//! ```
//!
//! Each reducer's partial is also its result: `count()` gives a `usize`, `max()` an `Option`,
//! `min_by_key(f)` the least key with its item. Ties resolve as `Iterator` resolves them (the
//! first minimum, the last maximum), on every executor.
//!
//! A reducer inside a tuple cannot stop the pass: `any`, `all` and `first` here see every item
//! (their siblings need them all), where the pipeline's own
//! [`any`](crate::Pipeline::any), [`all`](crate::Pipeline::all) and
//! [`find_first`](crate::Pipeline::find_first) stop at the first decisive item.
//!
//! Per-piece initial values (Transducers' `OnInit`, `wheninit`) and a combine of its own
//! (`whencombine`) are [`fold`]'s `start` and `merge`.

mod tee;

use std::cmp::Ordering;
use std::iter::{Product, Sum};
use std::marker::PhantomData;
use std::mem;
use std::ops::{Add, Mul};

pub use tee::{map, Map};

/// A reduction: a partial per piece of the fold (and per group in
/// [`group_by`](crate::Pipeline::group_by)), items pushed in index order, partials merged left
/// first, so `merge` must be associative with [`Reducer::start`] as its identity.
///
/// Implemented by the reducers of this module and by tuples of 2 to 8 reducers (each item is
/// cloned into every one but the last).
pub trait Reducer<T>: Sync {
    /// The partial result, which is also the result.
    type Acc: Send;
    /// An empty partial.
    fn start(&self) -> Self::Acc;
    /// Adds `item` to a partial.
    fn push(&self, acc: &mut Self::Acc, item: T);
    /// Appends the partial of a later piece, `right`, to `left`.
    fn merge(&self, left: &mut Self::Acc, right: Self::Acc);
}

/// Counts the items (rayon's `count`).
///
/// ```
/// use foldex_pipeline::{group, IntoPipeline};
/// use foldex_seq::SequentialEx;
/// let by_parity = (0..7).pipe().group_by(&SequentialEx, |x| x % 2, group::count());
/// assert_eq!((by_parity[&0], by_parity[&1]), (4, 3));
/// ```
pub fn count() -> Count {
    Count
}

/// The [`Reducer`] of [`count`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Count;

impl<T> Reducer<T> for Count {
    type Acc = usize;
    fn start(&self) -> usize {
        0
    }
    #[inline]
    fn push(&self, acc: &mut usize, _: T) {
        *acc += 1;
    }
    fn merge(&self, left: &mut usize, right: usize) {
        *left += right;
    }
}

/// Sums the items into an `S`, as `Iterator::sum` (rayon's `sum`).
///
/// ```
/// use foldex_pipeline::{group, IntoPipeline};
/// use foldex_seq::SequentialEx;
/// let by_len = ["a", "bb", "cc"].pipe().map(|w| w.len() as u64).group_by(&SequentialEx, |n| *n, group::sum::<u64>());
/// assert_eq!(by_len[&2], 4);
/// ```
pub fn sum<S>() -> SumOf<S> {
    SumOf(PhantomData)
}

/// The [`Reducer`] of [`sum`].
#[derive(Debug)]
pub struct SumOf<S>(PhantomData<fn() -> S>);

impl<T, S> Reducer<T> for SumOf<S>
where
    S: Add<T, Output = S> + Sum<S> + Send,
{
    type Acc = S;
    fn start(&self) -> S {
        std::iter::empty::<S>().sum()
    }
    #[inline]
    fn push(&self, acc: &mut S, item: T) {
        let total = mem::replace(acc, self.start());
        *acc = total + item;
    }
    fn merge(&self, left: &mut S, right: S) {
        let total = mem::replace(left, self.start());
        *left = [total, right].into_iter().sum();
    }
}

/// Multiplies the items into a `P`, as `Iterator::product` (rayon's `product`).
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{product, sum};
/// use foldex_seq::SequentialEx;
/// let (s, p) = (1..=5u64).pipe().reduce_all(&SequentialEx, (sum::<u64>(), product::<u64>()));
/// assert_eq!((s, p), (15, 120));
/// ```
pub fn product<P>() -> ProductOf<P> {
    ProductOf(PhantomData)
}

/// The [`Reducer`] of [`product`].
#[derive(Debug)]
pub struct ProductOf<P>(PhantomData<fn() -> P>);

impl<T, P> Reducer<T> for ProductOf<P>
where
    P: Mul<T, Output = P> + Product<P> + Send,
{
    type Acc = P;
    fn start(&self) -> P {
        std::iter::empty::<P>().product()
    }
    #[inline]
    fn push(&self, acc: &mut P, item: T) {
        let total = mem::replace(acc, self.start());
        *acc = total * item;
    }
    fn merge(&self, left: &mut P, right: P) {
        let total = mem::replace(left, self.start());
        *left = [total, right].into_iter().product();
    }
}

/// The least item, the first of equals, as `Iterator::min`; `None` when there is none.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{max, min};
/// use foldex_seq::SequentialEx;
/// let ends = [4, 1, 9].pipe().copied().reduce_all(&SequentialEx, (min(), max()));
/// assert_eq!(ends, (Some(1), Some(9)));
/// ```
pub fn min() -> MinBy<Natural> {
    MinBy(Natural)
}

/// The greatest item, the last of equals, as `Iterator::max`; `None` when there is none.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::max;
/// use foldex_seq::SequentialEx;
/// assert_eq!([4, 1, 9].pipe().reduce_all(&SequentialEx, max()), Some(&9));
/// ```
pub fn max() -> MaxBy<Natural> {
    MaxBy(Natural)
}

/// The least item by `compare`, the first of equals, as `Iterator::min_by`.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{max_by, min_by};
/// use foldex_seq::SequentialEx;
/// let v = [2.5f64, -1.0, 7.0];
/// let ends = v.pipe().copied().reduce_all(&SequentialEx, (min_by(f64::total_cmp), max_by(f64::total_cmp)));
/// assert_eq!(ends, (Some(-1.0), Some(7.0)));
/// ```
pub fn min_by<T, F: Fn(&T, &T) -> Ordering>(compare: F) -> MinBy<F> {
    MinBy(compare)
}

/// The greatest item by `compare`, the last of equals, as `Iterator::max_by`.
///
/// See [`min_by`] for an example.
pub fn max_by<T, F: Fn(&T, &T) -> Ordering>(compare: F) -> MaxBy<F> {
    MaxBy(compare)
}

/// The [`Reducer`] of [`min`] (`F` is [`Natural`]) and [`min_by`].
#[derive(Debug, Clone, Copy)]
pub struct MinBy<F>(F);

/// The [`Reducer`] of [`max`] (`F` is [`Natural`]) and [`max_by`].
#[derive(Debug, Clone, Copy)]
pub struct MaxBy<F>(F);

/// The order of `Ord`, for [`min`] and [`max`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Natural;

/// `true` when `right`, found after `left`, replaces it: for a minimum only when less, for a
/// maximum unless less (so the first minimum and the last maximum win, as `Iterator`'s).
#[inline]
fn right_wins(order: Ordering, minimum: bool) -> bool {
    match minimum {
        true => order == Ordering::Less,
        false => order != Ordering::Less,
    }
}

/// Keeps in `acc` the winner of it and `item` (to its right).
#[inline]
fn keep<T>(acc: &mut Option<T>, item: T, wins: impl FnOnce(&T, &T) -> bool) {
    match acc {
        Some(best) if !wins(&item, best) => {}
        _ => *acc = Some(item),
    }
}

/// The reducers of `min` and `min_by` (or `max` and `max_by`).
macro_rules! extremum {
    ($ty:ident, $minimum:expr) => {
        impl<T: Ord + Send> Reducer<T> for $ty<Natural> {
            type Acc = Option<T>;
            fn start(&self) -> Option<T> {
                None
            }
            #[inline]
            fn push(&self, acc: &mut Option<T>, item: T) {
                keep(acc, item, |r, l| right_wins(r.cmp(l), $minimum));
            }
            fn merge(&self, left: &mut Option<T>, right: Option<T>) {
                if let Some(item) = right {
                    self.push(left, item);
                }
            }
        }

        impl<T: Send, F: Fn(&T, &T) -> Ordering + Sync> Reducer<T> for $ty<F> {
            type Acc = Option<T>;
            fn start(&self) -> Option<T> {
                None
            }
            #[inline]
            fn push(&self, acc: &mut Option<T>, item: T) {
                keep(acc, item, |r, l| right_wins((self.0)(r, l), $minimum));
            }
            fn merge(&self, left: &mut Option<T>, right: Option<T>) {
                if let Some(item) = right {
                    self.push(left, item);
                }
            }
        }
    };
}

extremum!(MinBy, true);
extremum!(MaxBy, false);

/// The item with the least key, the first of equals, as `Iterator::min_by_key`, with its key:
/// `Some((key, item))`; `key` runs once per item.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{max_by_key, min_by_key};
/// use foldex_seq::SequentialEx;
/// let words = ["bb", "a", "cc", "d"];
/// let (short, long) = words.pipe().copied().reduce_all(
///     &SequentialEx,
///     (min_by_key(|w: &&str| w.len()), max_by_key(|w: &&str| w.len())),
/// );
/// assert_eq!((short, long), (Some((1, "a")), Some((2, "cc"))));
/// ```
pub fn min_by_key<T, K: Ord, F: Fn(&T) -> K>(key: F) -> ByKey<F, true> {
    ByKey(key)
}

/// The item with the greatest key, the last of equals, as `Iterator::max_by_key`, with its
/// key: `Some((key, item))`. See [`min_by_key`] for an example.
pub fn max_by_key<T, K: Ord, F: Fn(&T) -> K>(key: F) -> ByKey<F, false> {
    ByKey(key)
}

/// The [`Reducer`] of [`min_by_key`] (`MINIMUM`) and [`max_by_key`].
#[derive(Debug, Clone, Copy)]
pub struct ByKey<F, const MINIMUM: bool>(F);

impl<T, K, F, const MINIMUM: bool> Reducer<T> for ByKey<F, MINIMUM>
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    type Acc = Option<(K, T)>;
    fn start(&self) -> Option<(K, T)> {
        None
    }
    #[inline]
    fn push(&self, acc: &mut Option<(K, T)>, item: T) {
        let key = (self.0)(&item);
        keep(acc, (key, item), |r, l| right_wins(r.0.cmp(&l.0), MINIMUM));
    }
    fn merge(&self, left: &mut Option<(K, T)>, right: Option<(K, T)>) {
        if let Some(right) = right {
            keep(left, right, |r, l| right_wins(r.0.cmp(&l.0), MINIMUM));
        }
    }
}

/// The first item (by index), as `Iterator::next` on the chain; `None` when there is none.
/// In a tuple it sees every item: [`Pipeline::find_first`](crate::Pipeline::find_first) stops.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{first, last};
/// use foldex_threaded::ThreadedEx;
/// let ends = (10..20).pipe().filter(|x| x % 3 == 0).reduce_all(&ThreadedEx::new(), (first(), last()));
/// assert_eq!(ends, (Some(12), Some(18)));
/// ```
pub fn first() -> First {
    First
}

/// The [`Reducer`] of [`first`].
#[derive(Debug, Clone, Copy, Default)]
pub struct First;

impl<T: Send> Reducer<T> for First {
    type Acc = Option<T>;
    fn start(&self) -> Option<T> {
        None
    }
    #[inline]
    fn push(&self, acc: &mut Option<T>, item: T) {
        if acc.is_none() {
            *acc = Some(item);
        }
    }
    fn merge(&self, left: &mut Option<T>, right: Option<T>) {
        if left.is_none() {
            *left = right;
        }
    }
}

/// The last item (by index), as `Iterator::last`; `None` when there is none. See [`first`].
pub fn last() -> Last {
    Last
}

/// The [`Reducer`] of [`last`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Last;

impl<T: Send> Reducer<T> for Last {
    type Acc = Option<T>;
    fn start(&self) -> Option<T> {
        None
    }
    #[inline]
    fn push(&self, acc: &mut Option<T>, item: T) {
        *acc = Some(item);
    }
    fn merge(&self, left: &mut Option<T>, right: Option<T>) {
        if right.is_some() {
            *left = right;
        }
    }
}

/// `true` if `f` holds for some item (`false` when there is none), as `Iterator::any`, but
/// `f` runs on every item: a reducer cannot stop a pass its siblings need whole. Alone,
/// [`Pipeline::any`](crate::Pipeline::any) stops at the first hit.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{all, any, count};
/// use foldex_seq::SequentialEx;
/// let r = [2, 4, 7].pipe().reduce_all(&SequentialEx, (any(|x: &i32| *x > 5), all(|x: &i32| x % 2 == 0), count()));
/// assert_eq!(r, (true, false, 3));
/// ```
pub fn any<T, F: Fn(T) -> bool>(f: F) -> AnyOf<F> {
    AnyOf(f)
}

/// `true` if `f` holds for every item (`true` when there is none), as `Iterator::all`; `f`
/// runs on every item (see [`any`]).
pub fn all<T, F: Fn(T) -> bool>(f: F) -> AllOf<F> {
    AllOf(f)
}

/// The [`Reducer`] of [`any`].
#[derive(Debug, Clone, Copy)]
pub struct AnyOf<F>(F);

/// The [`Reducer`] of [`all`].
#[derive(Debug, Clone, Copy)]
pub struct AllOf<F>(F);

impl<T, F: Fn(T) -> bool + Sync> Reducer<T> for AnyOf<F> {
    type Acc = bool;
    fn start(&self) -> bool {
        false
    }
    #[inline]
    fn push(&self, acc: &mut bool, item: T) {
        *acc |= (self.0)(item);
    }
    fn merge(&self, left: &mut bool, right: bool) {
        *left |= right;
    }
}

impl<T, F: Fn(T) -> bool + Sync> Reducer<T> for AllOf<F> {
    type Acc = bool;
    fn start(&self) -> bool {
        true
    }
    #[inline]
    fn push(&self, acc: &mut bool, item: T) {
        *acc &= (self.0)(item);
    }
    fn merge(&self, left: &mut bool, right: bool) {
        *left &= right;
    }
}

/// The arithmetic mean of the items as `f64` (any item that converts to `f64` losslessly:
/// `f32`, `f64`, integers up to 32 bits; map wider ones to `f64` first): a [`Mean`], whose
/// [`get`](Mean::get) is `None` when there is no item. The sum is an `f64` sum, so where the
/// items are not exact in `f64` the last bits depend on the executor's split.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{count, mean};
/// use foldex_threaded::ThreadedEx;
/// let (n, avg) = [1u32, 2, 3, 6].pipe().copied().reduce_all(&ThreadedEx::new(), (count(), mean()));
/// assert_eq!((n, avg.get()), (4, Some(3.0)));
/// ```
pub fn mean() -> MeanOf {
    MeanOf
}

/// The [`Reducer`] of [`mean`].
#[derive(Debug, Clone, Copy, Default)]
pub struct MeanOf;

/// The partial of [`mean`]: a sum and a count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Mean {
    /// The sum of the items.
    pub sum: f64,
    /// The number of items.
    pub count: usize,
}

impl Mean {
    /// The mean, `sum / count`; `None` when there is no item.
    pub fn get(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

impl<T: Into<f64>> Reducer<T> for MeanOf {
    type Acc = Mean;
    fn start(&self) -> Mean {
        Mean::default()
    }
    #[inline]
    fn push(&self, acc: &mut Mean, item: T) {
        acc.sum += item.into();
        acc.count += 1;
    }
    fn merge(&self, left: &mut Mean, right: Mean) {
        left.sum += right.sum;
        left.count += right.count;
    }
}

/// Any reduction, from an empty partial made by `start` once per piece (Transducers'
/// `OnInit`, `wheninit`), an in-place `push`, and an in-place `merge` that appends a later
/// partial to an earlier one (`whencombine`).
///
/// ```
/// use foldex_pipeline::{reducers, IntoPipeline};
/// use foldex_seq::SequentialEx;
/// // The words of each length, in order.
/// let words = ["a", "bb", "c", "dd", "e"];
/// let concat = reducers::fold(String::new, |s: &mut String, w: &&str| s.push_str(w), |a, b| a.push_str(&b));
/// let by_len = words.pipe().group_by(&SequentialEx, |w| w.len(), concat);
/// assert_eq!(by_len[&1], "ace");
/// assert_eq!(by_len[&2], "bbdd");
/// ```
pub fn fold<A, I, P, M>(start: I, push: P, merge: M) -> FoldWith<I, P, M>
where
    I: Fn() -> A,
    M: Fn(&mut A, A),
{
    FoldWith { start, push, merge }
}

/// The [`Reducer`] of [`fold`].
#[derive(Debug, Clone, Copy)]
pub struct FoldWith<I, P, M> {
    start: I,
    push: P,
    merge: M,
}

impl<T, A, I, P, M> Reducer<T> for FoldWith<I, P, M>
where
    A: Send,
    I: Fn() -> A + Sync,
    P: Fn(&mut A, T) + Sync,
    M: Fn(&mut A, A) + Sync,
{
    type Acc = A;
    fn start(&self) -> A {
        (self.start)()
    }
    #[inline]
    fn push(&self, acc: &mut A, item: T) {
        (self.push)(acc, item)
    }
    fn merge(&self, left: &mut A, right: A) {
        (self.merge)(left, right)
    }
}

/// Combines the items with the associative `op`, as `Iterator::reduce` (rayon's
/// `reduce_with`); `None` when there is none.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_pipeline::reducers::{count, reduce_with};
/// use foldex_seq::SequentialEx;
/// let r = ["ab", "c", "de"].pipe().copied().map(String::from).reduce_all(&SequentialEx, (count(), reduce_with(|a: String, b: String| a + &b)));
/// assert_eq!(r, (3, Some("abcde".to_string())));
/// ```
pub fn reduce_with<T, F: Fn(T, T) -> T>(op: F) -> ReduceWith<F> {
    ReduceWith(op)
}

/// The [`Reducer`] of [`reduce_with`].
#[derive(Debug, Clone, Copy)]
pub struct ReduceWith<F>(F);

impl<T: Send, F: Fn(T, T) -> T + Sync> Reducer<T> for ReduceWith<F> {
    type Acc = Option<T>;
    fn start(&self) -> Option<T> {
        None
    }
    #[inline]
    fn push(&self, acc: &mut Option<T>, item: T) {
        *acc = Some(match acc.take() {
            Some(a) => (self.0)(a, item),
            None => item,
        });
    }
    fn merge(&self, left: &mut Option<T>, right: Option<T>) {
        if let Some(item) = right {
            self.push(left, item);
        }
    }
}
