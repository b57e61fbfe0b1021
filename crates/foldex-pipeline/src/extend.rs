//! [`ParallelExtend`]: a collection extended by a pipeline's items, as rayon's `par_extend`.

use crate::collect::FromPipeline;
use crate::pipeline::Pipeline;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

/// A collection that a pipeline's items extend, in order, as `Extend::extend` with the same
/// items would (rayon's `ParallelExtend`): the items are collected on the executor
/// ([`Pipeline::collect`] into [`ParallelExtend::Collected`]), then added at the end.
///
/// ```
/// use foldex_pipeline::{IntoPipeline, ParallelExtend};
/// use foldex_threaded::ThreadedEx;
/// use std::collections::HashMap;
/// let ex = ThreadedEx::new();
/// let mut squares = vec![0u64];
/// squares.par_extend(&ex, (1..5u64).pipe().map(|x| x * x));
/// assert_eq!(squares, [0, 1, 4, 9, 16]);
/// let mut lengths = HashMap::from([("a", 0)]);
/// lengths.par_extend(&ex, ["a", "bb"].pipe().map(|w| (*w, w.len())));
/// assert_eq!((lengths["a"], lengths["bb"]), (1, 2));
/// // From references to `Copy` items, as `Extend<&T>`:
/// squares.par_extend(&ex, [25u64, 36].pipe());
/// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36]);
/// ```
pub trait ParallelExtend<T> {
    /// What the items are collected into before they join the collection.
    type Collected: FromPipeline<T>;

    /// Adds `items`, collected in order, at the end of the collection.
    fn extend_collected(&mut self, items: Self::Collected);

    /// Adds the items of `pipeline`, run on `ex`, as `Extend::extend` adds an iterator's.
    fn par_extend<S, X, K>(&mut self, ex: &(impl Executor + ?Sized), pipeline: Pipeline<S, X, K>)
    where
        S: PipeSource,
        X: Transform<S::Item, Out = T>,
        K: Codec<<Self::Collected as FromPipeline<T>>::Partial>,
    {
        self.extend_collected(pipeline.collect(ex));
    }
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    type Collected = Vec<T>;
    fn extend_collected(&mut self, mut items: Vec<T>) {
        self.append(&mut items);
    }
}

impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    type Collected = LinkedList<T>;
    fn extend_collected(&mut self, mut items: LinkedList<T>) {
        self.append(&mut items);
    }
}

/// Collections extended from a `Vec` of the items, with `Extend` (a map keeps the later value
/// of a repeated key, as `Extend` does).
macro_rules! extend_from_vec {
    ($([$($generics:tt)*] $item:ty => $coll:ty;)*) => {$(
        impl<$($generics)*> ParallelExtend<$item> for $coll {
            type Collected = Vec<$item>;
            fn extend_collected(&mut self, items: Vec<$item>) {
                self.extend(items);
            }
        }
    )*};
}

extend_from_vec! {
    [T: Send] T => VecDeque<T>;
    [T: Ord + Send] T => BinaryHeap<T>;
    [K: Eq + Hash + Send, V: Send, H: BuildHasher] (K, V) => HashMap<K, V, H>;
    [T: Eq + Hash + Send, H: BuildHasher] T => HashSet<T, H>;
    [K: Ord + Send, V: Send] (K, V) => BTreeMap<K, V>;
    [T: Ord + Send] T => BTreeSet<T>;
}

/// Collections of `Copy` items extended from references to them (rayon's
/// `ParallelExtend<&T>`, std's `Extend<&T>`): the references are collected in order, then the
/// items they point to copied in.
macro_rules! extend_copied {
    ($([$($generics:tt)*] $item:ty => $coll:ty, |$r:ident| $copy:expr;)*) => {$(
        impl<'a, $($generics)*> ParallelExtend<$item> for $coll {
            type Collected = Vec<$item>;
            fn extend_collected(&mut self, items: Vec<$item>) {
                self.extend(items.into_iter().map(|$r| $copy));
            }
        }
    )*};
}

extend_copied! {
    [T: Copy + Send + Sync] &'a T => Vec<T>, |x| *x;
    [T: Copy + Send + Sync] &'a T => VecDeque<T>, |x| *x;
    [T: Copy + Send + Sync] &'a T => LinkedList<T>, |x| *x;
    [T: Copy + Ord + Send + Sync] &'a T => BinaryHeap<T>, |x| *x;
    [T: Copy + Eq + Hash + Send + Sync, H: BuildHasher] &'a T => HashSet<T, H>, |x| *x;
    [T: Copy + Ord + Send + Sync] &'a T => BTreeSet<T>, |x| *x;
    [K: Copy + Eq + Hash + Send + Sync, V: Copy + Send + Sync, H: BuildHasher]
        (&'a K, &'a V) => HashMap<K, V, H>, |kv| (*kv.0, *kv.1);
    [K: Copy + Ord + Send + Sync, V: Copy + Send + Sync]
        (&'a K, &'a V) => BTreeMap<K, V>, |kv| (*kv.0, *kv.1);
}

/// `String` from every item it collects: a `String` per piece, appended.
macro_rules! extend_string {
    ($([$($generics:tt)*] $item:ty;)*) => {$(
        impl<$($generics)*> ParallelExtend<$item> for String {
            type Collected = String;
            fn extend_collected(&mut self, items: String) {
                self.push_str(&items);
            }
        }
    )*};
}

extend_string! {
    [] char;
    ['c] &'c char;
    ['c] &'c str;
    [] String;
    [] Box<str>;
    ['c] Cow<'c, str>;
}
