//! `group_by`: a reduction per key, each piece folding into a map of partials that are merged
//! per key, left piece first, when pieces combine.

use crate::pipeline::Pipeline;
use crate::streamed::PipeSource;
use crate::transform::Transform;
use foldex_core::{Codec, Executor};
use std::collections::hash_map::{Entry, HashMap};
use std::hash::Hash;
use std::iter::Sum;
use std::marker::PhantomData;
use std::mem;
use std::ops::Add;

/// A reduction applied to each group of [`Pipeline::group_by`]: a partial per group and piece,
/// merged left first, so `merge` must be associative with [`Reducer::start`] as its identity.
pub trait Reducer<T>: Sync {
    /// A group's partial result.
    type Acc: Send;
    /// An empty partial.
    fn start(&self) -> Self::Acc;
    /// Adds `item` to a partial.
    fn push(&self, acc: &mut Self::Acc, item: T);
    /// Appends the partial of a later piece, `right`, to `left`.
    fn merge(&self, left: &mut Self::Acc, right: Self::Acc);
}

/// Counts a group's items: `group_by(ex, key, count())`.
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

/// Sums a group's items into an `S`: `group_by(ex, key, sum::<u64>())`.
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

/// Any reduction, from an empty partial `start`, an in-place `push` and an in-place `merge`
/// (which appends a later partial to an earlier one).
///
/// ```
/// use foldex_pipeline::{group, IntoPipeline};
/// use foldex_seq::SequentialEx;
/// // The words of each length, in order.
/// let words = ["a", "bb", "c", "dd", "e"];
/// let concat = group::fold(String::new, |s: &mut String, w: &&str| s.push_str(w), |a, b| a.push_str(&b));
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

impl<S: PipeSource, X: Transform<S::Item>, D> Pipeline<S, X, D> {
    /// Groups the items by `key` and reduces each group with `reducer` ([`count`], [`sum`],
    /// [`fold`]): a map from each key to its group's result, the items of a group reduced in
    /// index order. `key` sees each item by reference, so a key owned by the item (a `String`)
    /// is cloned: [`group_pairs`](Pipeline::group_pairs) moves it instead.
    ///
    /// ```
    /// use foldex_pipeline::{group, IntoPipeline};
    /// use foldex_threaded::ThreadedEx;
    /// let text = "the cat and the hat and the bat";
    /// let words: Vec<&str> = text.split(' ').collect();
    /// let counts = words.pipe().group_by(&ThreadedEx::new(), |w| **w, group::count());
    /// assert_eq!(counts["the"], 3);
    /// assert_eq!(counts["and"], 2);
    /// ```
    pub fn group_by<E, K, F, R>(&self, ex: &E, key: F, reducer: R) -> HashMap<K, R::Acc>
    where
        E: Executor + ?Sized,
        K: Eq + Hash + Send,
        F: Fn(&X::Out) -> K + Sync,
        R: Reducer<X::Out>,
        D: Codec<Box<HashMap<K, R::Acc>>>,
    {
        self.group_pairs(ex, |item| (key(&item), item), reducer)
    }

    /// Groups the `(key, value)` pairs that `pair` makes of each item, taken by value, and
    /// reduces each group's values with `reducer`, in index order: [`group_by`](Pipeline::group_by)
    /// where the key is moved out of the item rather than made from a reference to it. A key
    /// goes into the map itself when it is new to a piece of the fold, and is dropped when its
    /// group is there: a key is never cloned.
    ///
    /// ```
    /// use foldex_pipeline::{group, IntoPipeline};
    /// use foldex_threaded::ThreadedEx;
    /// let sales = vec![(String::from("pen"), 3u32), (String::from("ink"), 5), (String::from("pen"), 4)];
    /// let owned = foldex_pipeline::from_vec(sales);
    /// let totals = owned.group_pairs(&ThreadedEx::new(), |sale| sale, group::sum::<u32>());
    /// assert_eq!((totals["pen"], totals["ink"]), (7, 5));
    /// ```
    pub fn group_pairs<E, K, V, F, R>(&self, ex: &E, pair: F, reducer: R) -> HashMap<K, R::Acc>
    where
        E: Executor + ?Sized,
        K: Eq + Hash + Send,
        F: Fn(X::Out) -> (K, V) + Sync,
        R: Reducer<V>,
        D: Codec<Box<HashMap<K, R::Acc>>>,
    {
        // Boxed, so that passing a piece's map from one `step` to the next moves a pointer.
        let push = |mut groups: Box<HashMap<K, R::Acc>>, item: X::Out| {
            let (key, value) = pair(item);
            let acc = groups.entry(key).or_insert_with(|| reducer.start());
            reducer.push(acc, value);
            groups
        };
        let merge = |left: Box<HashMap<K, R::Acc>>, right: Box<HashMap<K, R::Acc>>| {
            Box::new(merge_groups(&reducer, *left, *right))
        };
        *self.fold(ex, Box::default, push, merge)
    }

    /// How many times each item occurs (itertools' `counts`): each item is the key of its own
    /// group, moved into the map when it is new and dropped otherwise, never cloned. For the
    /// words of owned lines, [`flat_map_ref`](Pipeline::flat_map_ref) then
    /// [`counts`](crate::borrowed::RefPipeline::counts) copies each distinct word once.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let counts = [3, 1, 3, 3].pipe().copied().counts(&SequentialEx);
    /// assert_eq!((counts[&3], counts[&1]), (3, 1));
    /// ```
    pub fn counts<E>(&self, ex: &E) -> HashMap<X::Out, usize>
    where
        E: Executor + ?Sized,
        X::Out: Eq + Hash + Send,
        D: Codec<Box<HashMap<X::Out, usize>>>,
    {
        self.group_pairs(ex, |item| (item, ()), Count)
    }
}

/// Merges the groups of two adjacent pieces, each key's partials left first, walking the
/// smaller map.
pub(crate) fn merge_groups<K, T, R>(
    reducer: &R,
    mut left: HashMap<K, R::Acc>,
    mut right: HashMap<K, R::Acc>,
) -> HashMap<K, R::Acc>
where
    K: Eq + Hash,
    R: Reducer<T>,
{
    if left.len() >= right.len() {
        for (k, later) in right {
            match left.entry(k) {
                Entry::Occupied(mut e) => reducer.merge(e.get_mut(), later),
                Entry::Vacant(e) => {
                    e.insert(later);
                }
            }
        }
        left
    } else {
        for (k, earlier) in left {
            match right.entry(k) {
                Entry::Occupied(mut e) => {
                    let later = mem::replace(e.get_mut(), earlier);
                    reducer.merge(e.get_mut(), later);
                }
                Entry::Vacant(e) => {
                    e.insert(earlier);
                }
            }
        }
        right
    }
}
