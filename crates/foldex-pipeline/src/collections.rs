//! The rest of std's `FromIterator` for [`Pipeline::collect`](crate::Pipeline::collect):
//! `VecDeque`, `BinaryHeap`, `LinkedList`, `Box<[T]>`, `Rc<[T]>`, `Arc<[T]>`, `Cow<[T]>`,
//! `Box<str>`, `Cow<str>`, `String` from every item std takes, `()` (so that a
//! `Result<(), E>` collects), and a pair of collections from pairs (nested to any depth, as
//! `Iterator::unzip` into `(A, (B, C))`).
//!
//! Most are a `Vec` or a `String` collected as `collect.rs` collects them (in place, while the
//! pipeline is indexable), then turned into the collection as std's own `FromIterator` does
//! (`BinaryHeap` is heapified from the vector, as std builds it).

use crate::collect::{push_both, FromPipeline};
use foldex_core::{Executor, Source};
use std::borrow::Cow;
use std::collections::{BinaryHeap, LinkedList, VecDeque};
use std::ops::ControlFlow;
use std::rc::Rc;
use std::sync::Arc;

/// Collections made from a `$via` collected first.
macro_rules! collect_via {
    ($([$($generics:tt)*] $item:ty => $coll:ty, via $via:ty, |$v:ident| $make:expr;)*) => {$(
        impl<$($generics)*> FromPipeline<$item> for $coll {
            type Partial = <$via as FromPipeline<$item>>::Partial;
            const BREAKS: bool = <$via as FromPipeline<$item>>::BREAKS;
            #[inline]
            fn start() -> Self::Partial {
                <$via as FromPipeline<$item>>::start()
            }
            #[inline]
            fn push(
                partial: Self::Partial,
                item: $item,
            ) -> ControlFlow<Self::Partial, Self::Partial> {
                <$via as FromPipeline<$item>>::push(partial, item)
            }
            fn merge(left: Self::Partial, right: Self::Partial) -> Self::Partial {
                <$via as FromPipeline<$item>>::merge(left, right)
            }
            fn finish(partial: Self::Partial) -> Self {
                let $v = <$via as FromPipeline<$item>>::finish(partial);
                $make
            }
            fn collect_indexed<E, S>(ex: &E, items: S) -> Self
            where
                E: Executor + ?Sized,
                S: Source<Item = $item>,
            {
                let $v = <$via as FromPipeline<$item>>::collect_indexed(ex, items);
                $make
            }
        }
    )*};
}

collect_via! {
    [T: Send] T => VecDeque<T>, via Vec<T>, |v| VecDeque::from(v);
    [T: Ord + Send] T => BinaryHeap<T>, via Vec<T>, |v| BinaryHeap::from(v);
    [T: Send] T => Box<[T]>, via Vec<T>, |v| v.into_boxed_slice();
    [T: Send] T => Rc<[T]>, via Vec<T>, |v| Rc::from(v);
    [T: Send] T => Arc<[T]>, via Vec<T>, |v| Arc::from(v);
    ['a, T: Clone + Send] T => Cow<'a, [T]>, via Vec<T>, |v| Cow::Owned(v);
}

/// `String` from the items std's `FromIterator` takes beyond `char`, `&str` and `String`
/// (`collect.rs`).
macro_rules! collect_string {
    ($([$($generics:tt)*] $item:ty => |$s:ident, $x:ident| $push:expr;)*) => {$(
        impl<$($generics)*> FromPipeline<$item> for String {
            type Partial = String;
            fn start() -> String {
                String::new()
            }
            #[inline]
            fn push(mut $s: String, $x: $item) -> ControlFlow<String, String> {
                $push;
                ControlFlow::Continue($s)
            }
            fn merge(mut left: String, right: String) -> String {
                left.push_str(&right);
                left
            }
            fn finish(s: String) -> String {
                s
            }
        }
    )*};
}

collect_string! {
    ['c] &'c char => |s, c| s.push(*c);
    [] Box<str> => |s, x| s.push_str(&x);
    ['c] Cow<'c, str> => |s, x| s.push_str(&x);
}

/// `Box<str>` and `Cow<str>` from every item a `String` collects.
macro_rules! collect_via_string {
    ($([$($generics:tt)*] $item:ty;)*) => {
        collect_via! {$(
            [$($generics)*] $item => Box<str>, via String, |s| s.into_boxed_str();
            ['a, $($generics)*] $item => Cow<'a, str>, via String, |s| Cow::Owned(s);
        )*}
    };
}

collect_via_string! {
    [] char;
    ['c] &'c char;
    ['c] &'c str;
    [] String;
    [] Box<str>;
    ['c] Cow<'c, str>;
}

/// Consumes the items, as std's `FromIterator<()> for ()`: with it, a pipeline of
/// `Result<(), E>` collects into `Result<(), E>` (the first `Err` by index).
impl FromPipeline<()> for () {
    type Partial = ();
    fn start() {}
    #[inline]
    fn push((): (), (): ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }
    fn merge((): (), (): ()) {}
    fn finish((): ()) {}
}

/// Appends in place: merging two pieces' lists moves no item.
impl<T: Send> FromPipeline<T> for LinkedList<T> {
    type Partial = LinkedList<T>;
    fn start() -> LinkedList<T> {
        LinkedList::new()
    }
    #[inline]
    fn push(mut list: LinkedList<T>, item: T) -> ControlFlow<LinkedList<T>, LinkedList<T>> {
        list.push_back(item);
        ControlFlow::Continue(list)
    }
    fn merge(mut left: LinkedList<T>, mut right: LinkedList<T>) -> LinkedList<T> {
        left.append(&mut right);
        left
    }
    fn finish(list: LinkedList<T>) -> LinkedList<T> {
        list
    }
}

/// Pairs into a pair of collections, each in order, as std's `FromIterator<(A, B)>` for a pair
/// (what `Iterator::unzip` builds); a pair of pairs nests. The fold stops where either side
/// stops (a `Result` side's first `Err`).
impl<A, B, CA: FromPipeline<A>, CB: FromPipeline<B>> FromPipeline<(A, B)> for (CA, CB) {
    type Partial = (CA::Partial, CB::Partial);
    const BREAKS: bool = CA::BREAKS || CB::BREAKS;
    fn start() -> Self::Partial {
        (CA::start(), CB::start())
    }
    #[inline]
    fn push((a, b): Self::Partial, (x, y): (A, B)) -> ControlFlow<Self::Partial, Self::Partial> {
        push_both::<A, B, CA, CB>((a, b), Some(x), Some(y))
    }
    fn merge((la, lb): Self::Partial, (ra, rb): Self::Partial) -> Self::Partial {
        (CA::merge(la, ra), CB::merge(lb, rb))
    }
    fn finish((a, b): Self::Partial) -> Self {
        (CA::finish(a), CB::finish(b))
    }
}
