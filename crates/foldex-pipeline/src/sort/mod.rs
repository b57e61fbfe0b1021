//! The parallel sorts of a mutable slice, on any executor: rayon's `par_sort`,
//! `par_sort_unstable` and their `_by`, `_by_key` and `_by_cached_key` forms, as methods of
//! [`ParallelSort`] that take the executor.
//!
//! ```
//! use foldex_pipeline::sort::ParallelSort;
//! use foldex_threaded::ThreadedEx;
//!
//! let ex = ThreadedEx::new();
//! let mut v: Vec<u64> = (0..100_000).map(|i| i * 7919 % 100_003).collect();
//! v.par_sort(&ex);
//! assert!(v.windows(2).all(|w| w[0] <= w[1]));
//! let mut words = vec!["fold", "on", "any", "executor"];
//! words.par_sort_by_key(&ex, |w| w.len());
//! assert_eq!(words, ["on", "any", "fold", "executor"]);
//! ```
//!
//! What each gives is what std's sort of the same name gives:
//!
//! - **The stable sorts** (`par_sort`, `par_sort_by`, `par_sort_by_key`,
//!   `par_sort_by_cached_key`) give exactly `slice::sort_by`'s result: sorted, and equal
//!   elements in their original order.
//! - **The unstable sorts** (`par_sort_unstable`, `_by`, `_by_key`) give a sorted slice; equal
//!   elements may come in any order (the same one for the same executor settings: the sort
//!   depends on no timing).
//! - **A comparator (or key order) that is not a total order** gives some permutation of the
//!   elements; the sort never loops and never loses or doubles an element. As std's sorts do
//!   (since Rust 1.81), it may panic when it notices the order is inconsistent (std's leaf
//!   sorts notice), with every element in the slice once.
//! - **A panic** in the comparator or the key function stops the sort and is re-raised here
//!   with its payload, once every piece started has finished; every element is then in the
//!   slice exactly once (in an unspecified order).
//!
//! How: an executor with one worker ([`Executor::workers`]) sorts with std's sort on the
//! calling thread. Otherwise a pass first notices a slice already in order, or descending
//! (strictly, for the stable sorts), and leaves or reverses it. Else the stable sorts cut the slice in a few leaves per worker, sort
//! each with std's stable sort (driftsort) in parallel, and merge them pairwise, each merge
//! itself split in parallel pieces ([`foldex_core::merge::merge_sort`], which moves elements
//! without `Clone`); the unstable sorts are a parallel quicksort (by swaps: no `unsafe`):
//! levels of partitions whose two sides are sorted in parallel
//! ([`ExecutorExt::join`](foldex_core::ExecutorExt::join)) down to leaves of a few thousand
//! elements, each sorted on one thread: by std's unstable sort (ipnsort) for plain values, by
//! the same quicksort with block partitions for elements that own heap data (`String`s),
//! where that is faster than ipnsort.
//! `par_sort_by_cached_key` computes the keys in parallel (a pipeline), sorts the
//! `(key, index)` pairs unstably (the indices make them distinct, so the order is the stable
//! one) and moves the elements into place by swaps.

mod partition;
mod quick;

use crate::IntoPipeline;
use foldex_core::Executor;
use std::cmp::Ordering;

/// Leaves of the stable sort per worker, before rounding up to a power of two.
const STABLE_LEAVES_PER_WORKER: usize = 2;
/// Leaves of either sort are at least this long (a shorter slice is sorted whole).
const MIN_LEAF: usize = 4096;

/// The parallel sorts of a slice, on the executor given to each: rayon's
/// `ParallelSliceMut` sorts, with the executor as first argument. Implemented for `[T]`, so a
/// `Vec` has them too.
///
/// Every executor runs them (a custom one, `&dyn Executor`); the sort is parallel where the
/// executor runs [`join`](foldex_core::ExecutorExt::join)'s halves in parallel and has more than one
/// worker. See [the module](self) for what each promises.
///
/// ```
/// use foldex_core::Executor;
/// use foldex_pipeline::sort::ParallelSort;
/// use foldex_seq::SequentialEx;
/// use foldex_threaded::ThreadedEx;
///
/// let executors: [Box<dyn Executor>; 2] = [Box::new(SequentialEx), Box::new(ThreadedEx::new())];
/// for ex in &executors {
///     let mut pairs: Vec<(u8, usize)> = (0..50_000).map(|i| ((i % 7) as u8, i)).collect();
///     pairs.par_sort_by_key(&**ex, |p| p.0); // stable: the indices stay in order per key
///     assert!(pairs.windows(2).all(|w| w[0] < w[1]));
/// }
/// ```
pub trait ParallelSort<T: Send> {
    /// Sorts the slice stably, in parallel on `ex`: `slice::sort`'s result.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [-5, 4, 1, -3, 2];
    /// v.par_sort(&ThreadedEx::new());
    /// assert_eq!(v, [-5, -3, 1, 2, 4]);
    /// ```
    fn par_sort<E: Executor + ?Sized>(&mut self, ex: &E)
    where
        T: Ord;

    /// Sorts the slice stably by `compare`, in parallel on `ex`: `slice::sort_by`'s result.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [5, 4, 1, 3, 2];
    /// v.par_sort_by(&ThreadedEx::new(), |a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_by<E, F>(&mut self, ex: &E, compare: F)
    where
        E: Executor + ?Sized,
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the slice stably by the key `f` gives, in parallel on `ex`: `slice::sort_by_key`'s
    /// result. `f` runs at every comparison; [`par_sort_by_cached_key`](Self::par_sort_by_cached_key)
    /// runs it once per element.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [-5i32, 4, 1, -3, 2];
    /// v.par_sort_by_key(&ThreadedEx::new(), |k| k.abs());
    /// assert_eq!(v, [1, 2, -3, 4, -5]);
    /// ```
    fn par_sort_by_key<E, K, F>(&mut self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        K: Ord,
        F: Fn(&T) -> K + Sync;

    /// Sorts the slice stably by the key `f` gives, computing each element's key once, in
    /// parallel on `ex`: `slice::sort_by_cached_key`'s result. It allocates a `(key, index)`
    /// pair per element.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [-5i32, 4, 32, -3, 2];
    /// v.par_sort_by_cached_key(&ThreadedEx::new(), |k| k.to_string());
    /// assert_eq!(v, [-3, -5, 2, 32, 4]);
    /// ```
    fn par_sort_by_cached_key<E, K, F>(&mut self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        K: Ord + Send,
        F: Fn(&T) -> K + Sync;

    /// Sorts the slice, in parallel on `ex`, perhaps reordering equal elements:
    /// `slice::sort_unstable`'s result. It allocates nothing.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [-5, 4, 1, -3, 2];
    /// v.par_sort_unstable(&ThreadedEx::new());
    /// assert_eq!(v, [-5, -3, 1, 2, 4]);
    /// ```
    fn par_sort_unstable<E: Executor + ?Sized>(&mut self, ex: &E)
    where
        T: Ord;

    /// Sorts the slice by `compare`, in parallel on `ex`, perhaps reordering equal elements:
    /// `slice::sort_unstable_by`'s result.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [5, 4, 1, 3, 2];
    /// v.par_sort_unstable_by(&ThreadedEx::new(), |a, b| b.cmp(a));
    /// assert_eq!(v, [5, 4, 3, 2, 1]);
    /// ```
    fn par_sort_unstable_by<E, F>(&mut self, ex: &E, compare: F)
    where
        E: Executor + ?Sized,
        F: Fn(&T, &T) -> Ordering + Sync;

    /// Sorts the slice by the key `f` gives, in parallel on `ex`, perhaps reordering equal
    /// elements: `slice::sort_unstable_by_key`'s result. `f` runs at every comparison.
    ///
    /// ```
    /// use foldex_pipeline::sort::ParallelSort;
    /// use foldex_threaded::ThreadedEx;
    /// let mut v = [-5i32, 4, 1, -3, 2];
    /// v.par_sort_unstable_by_key(&ThreadedEx::new(), |k| k.abs());
    /// assert_eq!(v, [1, 2, -3, 4, -5]);
    /// ```
    fn par_sort_unstable_by_key<E, K, F>(&mut self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        K: Ord,
        F: Fn(&T) -> K + Sync;
}

impl<T: Send> ParallelSort<T> for [T] {
    fn par_sort<E: Executor + ?Sized>(&mut self, ex: &E)
    where
        T: Ord,
    {
        stable(&ex, self, &T::lt, &<[T]>::sort);
    }

    fn par_sort_by<E, F>(&mut self, ex: &E, compare: F)
    where
        E: Executor + ?Sized,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        stable(
            &ex,
            self,
            &|a: &T, b: &T| compare(a, b) == Ordering::Less,
            &|leaf: &mut [T]| leaf.sort_by(&compare),
        );
    }

    fn par_sort_by_key<E, K, F>(&mut self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        stable(
            &ex,
            self,
            &|a: &T, b: &T| f(a).lt(&f(b)),
            &|leaf: &mut [T]| leaf.sort_by_key(&f),
        );
    }

    fn par_sort_by_cached_key<E, K, F>(&mut self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        by_cached_key(&ex, self, &f);
    }

    fn par_sort_unstable<E: Executor + ?Sized>(&mut self, ex: &E)
    where
        T: Ord,
    {
        unstable(&ex, self, &T::lt, &<[T]>::sort_unstable);
    }

    fn par_sort_unstable_by<E, F>(&mut self, ex: &E, compare: F)
    where
        E: Executor + ?Sized,
        F: Fn(&T, &T) -> Ordering + Sync,
    {
        unstable(
            &ex,
            self,
            &|a: &T, b: &T| compare(a, b) == Ordering::Less,
            &|leaf: &mut [T]| leaf.sort_unstable_by(&compare),
        );
    }

    fn par_sort_unstable_by_key<E, K, F>(&mut self, ex: &E, f: F)
    where
        E: Executor + ?Sized,
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        unstable(
            &ex,
            self,
            &|a: &T, b: &T| f(a).lt(&f(b)),
            &|leaf: &mut [T]| leaf.sort_unstable_by_key(&f),
        );
    }
}

/// How many halvings cut `len` elements in about `per_worker` leaves for each of `workers`
/// (rounded up to a power of two), none shorter than [`MIN_LEAF`]: 0 (one leaf, the whole
/// slice) with one worker.
fn levels(workers: usize, per_worker: usize, len: usize) -> u32 {
    if workers <= 1 {
        return 0;
    }
    let wanted = workers.saturating_mul(per_worker);
    let mut leaves = wanted.min(len / MIN_LEAF).max(1).next_power_of_two();
    while leaves > 1 && len / leaves < MIN_LEAF {
        leaves /= 2;
    }
    leaves.ilog2()
}

/// The stable sorts: `sort_leaf` (std's stable sort by the order of `is_less`) on the leaves,
/// then parallel merges.
fn stable<T, F, L>(ex: &dyn Executor, v: &mut [T], is_less: &F, sort_leaf: &L)
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    if in_order_or_reversed(v, is_less, Ties::Kept) {
        return;
    }
    let levels = levels(ex.workers(), STABLE_LEAVES_PER_WORKER, v.len());
    foldex_core::merge::merge_sort(ex, v, levels, is_less, sort_leaf);
}

/// Whether the order of equal elements must be kept when a descending slice is reversed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ties {
    /// A stable sort: only a strictly descending slice (no two elements equal) is reversed.
    Kept,
    /// An unstable sort: any descending slice is reversed.
    Unordered,
}

/// Whether `v` is sorted, after reversing it if it was descending (strictly, where `ties`
/// are kept): a pass that stops at the first pair out of order either way, so a few
/// comparisons on most inputs, and a sort in one pass on sorted or reversed ones, which the
/// partitions and merges would not notice. A panicking `is_less` leaves `v` as it was.
fn in_order_or_reversed<T, F>(v: &mut [T], is_less: &F, ties: Ties) -> bool
where
    F: Fn(&T, &T) -> bool,
{
    if v.windows(2).all(|w| !is_less(&w[1], &w[0])) {
        return true;
    }
    let descending = match ties {
        Ties::Kept => v.windows(2).all(|w| is_less(&w[1], &w[0])),
        Ties::Unordered => v.windows(2).all(|w| !is_less(&w[0], &w[1])),
    };
    if descending {
        v.reverse();
    }
    descending
}

/// The unstable sorts: a parallel quicksort whose leaves `sort_leaf` sorts (std's unstable
/// sort by the order of `is_less`).
fn unstable<T, F, L>(ex: &dyn Executor, v: &mut [T], is_less: &F, sort_leaf: &L)
where
    T: Send,
    F: Fn(&T, &T) -> bool + Sync,
    L: Fn(&mut [T]) + Sync,
{
    let levels = levels(ex.workers(), quick::LEAVES_PER_WORKER, v.len());
    quick::sort(ex, v, levels, is_less, sort_leaf);
}

/// `par_sort_by_cached_key`: the keys in parallel, the `(key, index)` pairs sorted unstably
/// (distinct, so in the stable order), then each element swapped into place.
fn by_cached_key<T, K, F>(ex: &dyn Executor, v: &mut [T], f: &F)
where
    T: Send,
    K: Ord + Send,
    F: Fn(&T) -> K + Sync,
{
    let len = v.len();
    if len < 2 {
        return;
    }
    let mut keys: Vec<(K, usize)> = (&mut *v)
        .pipe()
        .enumerate()
        .map(|(i, x)| (f(x), i))
        .collect(ex);
    unstable(
        ex,
        &mut keys,
        &<(K, usize)>::lt,
        &<[(K, usize)]>::sort_unstable,
    );
    // Element `keys[i].1` (of the original order) goes to `i`. Those before `i` are in place,
    // so the one wanted may have been swapped away already: follow where it went, noting it
    // in `keys[i]` for those that look for it later (rayon's loop, as std's).
    for i in 0..len {
        let mut index = keys[i].1;
        while index < i {
            index = keys[index].1;
        }
        keys[i].1 = index;
        v.swap(i, index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_leave_leaves_long_enough() {
        assert_eq!(levels(1, 4, 1 << 30), 0);
        assert_eq!(levels(2, 2, 1 << 30), 2);
        assert_eq!(levels(3, 2, 1 << 30), 3);
        assert_eq!(levels(2, 2, 3 * MIN_LEAF), 1);
        assert_eq!(levels(2, 2, 2 * MIN_LEAF - 1), 0);
        assert_eq!(levels(usize::MAX, 2, 10), 0);
    }
}
