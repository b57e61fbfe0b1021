//! `group_by`: a reduction per key, each piece folding into a map of partials that are merged
//! per key, left piece first, when pieces combine.

//!
//! The reducers are those of [`crate::reducers`] (re-exported here): one description of each
//! reduction serves [`Pipeline::group_by`] per group and
//! [`Pipeline::reduce_all`](crate::Pipeline::reduce_all) over the whole pipeline.

use crate::pipeline::Pipeline;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};
use std::collections::hash_map::{Entry, HashMap};
use std::hash::Hash;
use std::mem;

pub use crate::reducers::{count, fold, sum, Count, FoldWith, Reducer, SumOf};

impl<S: PipeSource, X: Transform<S::Item>, D> Pipeline<S, X, D> {
    /// Groups the items by `key` and reduces each group with `reducer` ([`count`], [`sum`],
    /// [`fold`], any reducer of [`crate::reducers`] or a tuple of them): a map from each key
    /// to its group's result, the items of a group reduced in index order. `key` sees each
    /// item by reference, so a key owned by the item (a `String`) is cloned:
    /// [`group_pairs`](Pipeline::group_pairs) moves it instead.
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
