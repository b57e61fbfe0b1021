//! Sources that read no collection: [`repeat_n`], [`once`], [`empty`], as rayon's.
//!
//! rayon's unbounded `repeat(x)` is not provided: a pipeline knows its length before it runs,
//! so `repeat_n(x, n)` is its `repeat(x).take(n)`.

use super::{from_source, from_vec};
use crate::pipeline::Pipeline;
use foldex_core::source::{OwnedVec, RangeVisitor};
use foldex_core::Source;
use std::marker::PhantomData;
use std::ops::Range;

/// `n` clones of a value (indexable): see [`repeat_n`].
#[derive(Debug, Clone, Copy)]
pub struct RepeatN<T> {
    value: T,
    n: usize,
}

impl<T: Clone + Sync> Source for RepeatN<T> {
    type Item = T;
    #[inline]
    fn len(&self) -> usize {
        self.n
    }
    #[inline]
    fn get(&self, index: usize) -> T {
        assert!(index < self.n, "index {index} out of {} repeats", self.n);
        self.value.clone()
    }
    #[inline]
    fn visit_range<V: RangeVisitor<T>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let end = range.end.min(self.n);
        let count = end.saturating_sub(range.start);
        visitor.visit(std::iter::repeat_n(&self.value, count).cloned())
    }
}

/// The pipeline of `n` clones of `value`, as `std::iter::repeat_n` (rayon's `repeat_n`, and
/// its `repeat(value).take(n)`).
///
/// ```
/// use foldex_pipeline::sources::repeat_n;
/// use foldex_seq::SequentialEx;
/// assert_eq!(repeat_n("ab", 3).collect::<String>(&SequentialEx), "ababab");
/// ```
pub fn repeat_n<T: Clone + Sync>(value: T, n: usize) -> Pipeline<RepeatN<T>> {
    from_source(RepeatN { value, n })
}

/// The pipeline of the one item `value`, as `std::iter::once` (rayon's `once`). The value is
/// moved out, so the pipeline runs once, as [`from_vec`]'s.
///
/// ```
/// use foldex_pipeline::sources::once;
/// use foldex_seq::SequentialEx;
/// assert_eq!(once(String::from("x")).collect::<Vec<_>>(&SequentialEx), ["x"]);
/// ```
pub fn once<T: Send>(value: T) -> Pipeline<OwnedVec<T>> {
    from_vec(vec![value])
}

/// No items: see [`empty`].
#[derive(Debug, Clone, Copy)]
pub struct Empty<T>(PhantomData<fn() -> T>);

impl<T> Source for Empty<T> {
    type Item = T;
    fn len(&self) -> usize {
        0
    }
    fn get(&self, index: usize) -> T {
        panic!("index {index} out of an empty pipeline")
    }
}

/// The pipeline of no items, as `std::iter::empty` (rayon's `empty`).
///
/// ```
/// use foldex_pipeline::sources::empty;
/// use foldex_seq::SequentialEx;
/// assert_eq!(empty::<u32>().sum::<u32>(&SequentialEx), 0);
/// ```
pub fn empty<T>() -> Pipeline<Empty<T>> {
    from_source(Empty(PhantomData))
}
