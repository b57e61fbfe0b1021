//! std's collections as pipelines, by reference (`(&map).pipe()`, or `map.pipe()`, which
//! borrows) and by value ([`IntoOwnedPipeline::into_pipe`]), with the items of their own
//! `iter()` / `into_iter()` in the collection's own iteration order.
//!
//! What each costs before the first item:
//!
//! - `VecDeque` by reference (and by `&mut`) is indexed in place: its two slices, one after the
//!   other. `BinaryHeap`, `Option` and `Result` by reference are slices too.
//! - `HashMap`, `HashSet`, `BTreeMap`, `BTreeSet` and `LinkedList` cannot be indexed, so their
//!   references are gathered into a `Vec` when the pipeline is made ([`Gathered`]), as rayon
//!   does: one sequential pass over the collection and one reference (two for a map) per item.
//!   The pipeline is then indexable (`zip`, `enumerate`, `rev`...) and runs any number of times.
//! - By value, the items are moved into a `Vec` and handed out as by [`from_vec`]: free for a
//!   `Vec`, a `BinaryHeap` and a contiguous `VecDeque` (its buffer is taken over; a wrapped
//!   one is rotated in place first), one move per item for the others. The pipeline runs once.

use super::{from_source, from_vec};
use crate::indexed::Chain;
use crate::pipeline::{IntoPipeline, Pipeline};
use foldex_core::source::{MutSlice, OwnedVec, RangeVisitor};
use foldex_core::Source;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::ops::Range;

/// The references into a collection that cannot be indexed, gathered into a `Vec` in the
/// collection's iteration order: item `i` is the `i`-th reference (`&T`, or `(&K, &V)` for a
/// map). See the [module](self) for the cost.
#[derive(Debug, Clone)]
pub struct Gathered<T>(Vec<T>);

impl<T: Copy + Sync> Source for Gathered<T> {
    type Item = T;
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn get(&self, index: usize) -> T {
        self.0[index]
    }
    #[inline]
    fn visit_range<V: RangeVisitor<T>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        visitor.visit(self.0[range].iter().copied())
    }
}

fn gathered<T: Copy + Sync>(items: impl Iterator<Item = T>) -> Pipeline<Gathered<T>> {
    from_source(Gathered(items.collect()))
}

/// `(&map).pipe()`: the `(&K, &V)` pairs in the map's iteration order, as `map.iter()`.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_threaded::ThreadedEx;
/// use std::collections::HashMap;
/// let stock = HashMap::from([("apples", 3), ("pears", 4)]);
/// assert_eq!(stock.pipe().map(|(_, &n)| n).sum::<i32>(&ThreadedEx::new()), 7);
/// ```
impl<'s, K: Sync, V: Sync, H> IntoPipeline for &'s HashMap<K, V, H> {
    type Source = Gathered<(&'s K, &'s V)>;
    fn pipe(self) -> Pipeline<Self::Source> {
        gathered(self.iter())
    }
}

/// `(&set).pipe()`: the elements by reference, in the set's iteration order.
impl<'s, T: Sync, H> IntoPipeline for &'s HashSet<T, H> {
    type Source = Gathered<&'s T>;
    fn pipe(self) -> Pipeline<Self::Source> {
        gathered(self.iter())
    }
}

/// `(&map).pipe()`: the `(&K, &V)` pairs in key order.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// use std::collections::BTreeMap;
/// let m = BTreeMap::from([(2, "b"), (1, "a")]);
/// assert_eq!(m.pipe().map(|(_, v)| *v).collect::<String>(&SequentialEx), "ab");
/// ```
impl<'s, K: Sync, V: Sync> IntoPipeline for &'s BTreeMap<K, V> {
    type Source = Gathered<(&'s K, &'s V)>;
    fn pipe(self) -> Pipeline<Self::Source> {
        gathered(self.iter())
    }
}

/// `(&set).pipe()`: the elements by reference, in order.
impl<'s, T: Sync> IntoPipeline for &'s BTreeSet<T> {
    type Source = Gathered<&'s T>;
    fn pipe(self) -> Pipeline<Self::Source> {
        gathered(self.iter())
    }
}

/// `(&list).pipe()`: the elements by reference, front to back.
impl<'s, T: Sync> IntoPipeline for &'s LinkedList<T> {
    type Source = Gathered<&'s T>;
    fn pipe(self) -> Pipeline<Self::Source> {
        gathered(self.iter())
    }
}

/// `(&deque).pipe()`: the elements by reference, front to back, read in place from the
/// deque's two slices (indexable with nothing gathered).
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_seq::SequentialEx;
/// use std::collections::VecDeque;
/// let mut d = VecDeque::from([2, 3]);
/// d.push_front(1);
/// assert_eq!(d.pipe().rev().copied().collect::<Vec<_>>(&SequentialEx), [3, 2, 1]);
/// ```
impl<'s, T: Sync> IntoPipeline for &'s VecDeque<T> {
    type Source = Chain<&'s [T], &'s [T]>;
    fn pipe(self) -> Pipeline<Self::Source> {
        let (a, b) = self.as_slices();
        from_source(Chain { a, b })
    }
}

/// `(&mut deque).pipe()`: each element lent mutably to one piece, front to back. Runs once,
/// as a pipeline over `&mut [T]` does.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_threaded::ThreadedEx;
/// use std::collections::VecDeque;
/// let mut d: VecDeque<u32> = (0..100).collect();
/// d.rotate_left(30);
/// (&mut d).pipe().for_each(&ThreadedEx::new(), |x| *x += 1);
/// assert_eq!(d[0], 31);
/// ```
impl<'s, T: Send> IntoPipeline for &'s mut VecDeque<T> {
    type Source = Chain<MutSlice<'s, T>, MutSlice<'s, T>>;
    fn pipe(self) -> Pipeline<Self::Source> {
        let (a, b) = self.as_mut_slices();
        from_source(Chain {
            a: MutSlice::new(a),
            b: MutSlice::new(b),
        })
    }
}

/// `(&mut map).pipe()`: the `(&K, &mut V)` pairs in the map's iteration order, each lent to
/// one piece (gathered first, as by reference). Runs once.
///
/// ```
/// use foldex_pipeline::IntoPipeline;
/// use foldex_threaded::ThreadedEx;
/// use std::collections::HashMap;
/// let mut m: HashMap<u32, u32> = (0..50).map(|k| (k, k)).collect();
/// (&mut m).pipe().for_each(&ThreadedEx::new(), |(k, v)| *v += k);
/// assert_eq!(m[&7], 14);
/// ```
impl<'s, K: Sync, V: Send, H> IntoPipeline for &'s mut HashMap<K, V, H> {
    type Source = OwnedVec<(&'s K, &'s mut V)>;
    fn pipe(self) -> Pipeline<Self::Source> {
        from_vec(self.iter_mut().collect())
    }
}

/// `(&mut map).pipe()`: the `(&K, &mut V)` pairs in key order, each lent to one piece
/// (gathered first). Runs once.
impl<'s, K: Sync, V: Send> IntoPipeline for &'s mut BTreeMap<K, V> {
    type Source = OwnedVec<(&'s K, &'s mut V)>;
    fn pipe(self) -> Pipeline<Self::Source> {
        from_vec(self.iter_mut().collect())
    }
}

/// `(&heap).pipe()`: the elements by reference in `heap.iter()`'s order (the heap's storage
/// order, not sorted), read in place.
impl<'s, T: Sync> IntoPipeline for &'s BinaryHeap<T> {
    type Source = &'s [T];
    fn pipe(self) -> Pipeline<&'s [T]> {
        from_source(self.as_slice())
    }
}

/// `(&option).pipe()`: its value by reference, if any (0 or 1 items).
impl<'s, T: Sync> IntoPipeline for &'s Option<T> {
    type Source = &'s [T];
    fn pipe(self) -> Pipeline<&'s [T]> {
        from_source(self.as_slice())
    }
}

/// `(&result).pipe()`: its `Ok` value by reference, if any (0 or 1 items), as
/// `result.iter()`.
impl<'s, T: Sync, E> IntoPipeline for &'s Result<T, E> {
    type Source = &'s [T];
    fn pipe(self) -> Pipeline<&'s [T]> {
        from_source(match self {
            Ok(value) => std::slice::from_ref(value),
            Err(_) => &[],
        })
    }
}

/// A collection's items by value, as its `into_iter()` gives them and in that order: rayon's
/// `into_par_iter()` on a collection. A method of its own, so that `collection.pipe()` keeps
/// borrowing. Each piece moves its items out; items a run did not reach are dropped with the
/// pipeline, which runs once (see [`from_vec`] and the [module](self) for the cost).
///
/// ```
/// use foldex_pipeline::sources::IntoOwnedPipeline;
/// use foldex_threaded::ThreadedEx;
/// use std::collections::BTreeSet;
/// let names = BTreeSet::from([String::from("b"), String::from("a")]);
/// let joined: String = names.into_pipe().collect(&ThreadedEx::new());
/// assert_eq!(joined, "ab");
/// ```
pub trait IntoOwnedPipeline {
    /// What one item is.
    type Item: Send;
    /// The pipeline over the items, moved out of the collection.
    fn into_pipe(self) -> Pipeline<OwnedVec<Self::Item>>;
}

impl<T: Send> IntoOwnedPipeline for Vec<T> {
    type Item = T;
    fn into_pipe(self) -> Pipeline<OwnedVec<T>> {
        from_vec(self)
    }
}

impl<T: Send> IntoOwnedPipeline for VecDeque<T> {
    type Item = T;
    fn into_pipe(self) -> Pipeline<OwnedVec<T>> {
        from_vec(Vec::from(self))
    }
}

impl<T: Send> IntoOwnedPipeline for BinaryHeap<T> {
    type Item = T;
    fn into_pipe(self) -> Pipeline<OwnedVec<T>> {
        from_vec(self.into_vec())
    }
}

macro_rules! owned_by_collecting {
    ($($(#[$meta:meta])* [$($generics:tt)*] $ty:ty => $item:ty;)*) => {$(
        $(#[$meta])*
        impl<$($generics)*> IntoOwnedPipeline for $ty {
            type Item = $item;
            fn into_pipe(self) -> Pipeline<OwnedVec<$item>> {
                from_vec(self.into_iter().collect())
            }
        }
    )*};
}

owned_by_collecting! {
    [K: Send, V: Send, H] HashMap<K, V, H> => (K, V);
    [T: Send, H] HashSet<T, H> => T;
    [K: Send, V: Send] BTreeMap<K, V> => (K, V);
    [T: Send] BTreeSet<T> => T;
    [T: Send] LinkedList<T> => T;
    [T: Send] Option<T> => T;
    [T: Send, E] Result<T, E> => T;
}
