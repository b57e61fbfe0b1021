//! Comparisons of two indexable pipelines, item by item, as `Iterator::cmp`, `partial_cmp`,
//! `eq`, `ne`, `lt`, `le`, `gt` and `ge` (and rayon's, on indexed iterators): lexicographic,
//! a proper prefix less than the longer sequence. The search for the first pair that differs
//! is [`Pipeline::find_map_first`] over the two zipped, so it stops there.
//!
//! Where the common prefix is equal and the lengths differ, the longer side's next item is
//! made and dropped, as `Iterator`'s comparisons pull it before they see the other side end: a
//! `map` before the comparison runs on the same items as on `std::iter`.

use crate::indexed::{ByRef, Zip};
use crate::pipeline::{IntoPipeline, Pipeline};
use crate::sources::from_source;
use crate::stage::Id;
use foldex_core::{Executor, Source};
use std::cmp::Ordering;

impl<S: Source, K> Pipeline<S, Id, K> {
    /// Compares the items with those of `other` (anything with `.pipe()`, or an indexable
    /// pipeline) lexicographically, as `Iterator::cmp`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::cmp::Ordering;
    /// let ex = SequentialEx;
    /// assert_eq!([1, 2, 3].pipe().cmp(&ex, &[1, 2, 4]), Ordering::Less);
    /// assert_eq!((0..3).pipe().cmp(&ex, (0..2).pipe()), Ordering::Greater);
    /// ```
    pub fn cmp<E, T>(&self, ex: &E, other: T) -> Ordering
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        T::Source: Source<Item = S::Item>,
        S::Item: Ord,
    {
        let differ = |a: S::Item, b: S::Item| match a.cmp(&b) {
            Ordering::Equal => None,
            unequal => Some(unequal),
        };
        let (first, lengths) = self.first_difference(ex, other, differ);
        first.unwrap_or(lengths)
    }

    /// Compares the items with those of `other` lexicographically, as `Iterator::partial_cmp`:
    /// `None` where the first pair that is not equal is unordered (a NaN).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// use std::cmp::Ordering;
    /// let ex = SequentialEx;
    /// assert_eq!([1.0, 2.0].pipe().partial_cmp(&ex, &[1.0, 2.5]), Some(Ordering::Less));
    /// assert_eq!([f64::NAN].pipe().partial_cmp(&ex, &[1.0]), None);
    /// ```
    pub fn partial_cmp<E, T>(&self, ex: &E, other: T) -> Option<Ordering>
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialOrd<<T::Source as Source>::Item>,
    {
        let differ = |a: S::Item, b| match a.partial_cmp(&b) {
            Some(Ordering::Equal) => None,
            unequal => Some(unequal),
        };
        let (first, lengths) = self.first_difference(ex, other, differ);
        first.unwrap_or(Some(lengths))
    }

    /// `true` where the items equal those of `other`, as `Iterator::eq`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!([1, 2, 3].pipe().copied().eq(&SequentialEx, 1..4));
    /// assert!(!(1..4).pipe().eq(&SequentialEx, 1..3));
    /// ```
    pub fn eq<E, T>(&self, ex: &E, other: T) -> bool
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialEq<<T::Source as Source>::Item>,
    {
        let differ = |a: S::Item, b| if a == b { None } else { Some(()) };
        let (first, lengths) = self.first_difference(ex, other, differ);
        first.is_none() && lengths == Ordering::Equal
    }

    /// `true` where the items differ from those of `other`, as `Iterator::ne`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!(["a", "b"].pipe().ne(&SequentialEx, &["a", "c"]));
    /// ```
    pub fn ne<E, T>(&self, ex: &E, other: T) -> bool
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialEq<<T::Source as Source>::Item>,
    {
        !self.eq(ex, other)
    }

    /// `true` where the items are lexicographically less than those of `other`, as
    /// `Iterator::lt`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!((0..2).pipe().lt(&SequentialEx, 0..3));
    /// ```
    pub fn lt<E, T>(&self, ex: &E, other: T) -> bool
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialOrd<<T::Source as Source>::Item>,
    {
        self.partial_cmp(ex, other) == Some(Ordering::Less)
    }

    /// `true` where the items are lexicographically less than or equal to those of `other`,
    /// as `Iterator::le`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!((0..3).pipe().le(&SequentialEx, 0..3));
    /// ```
    pub fn le<E, T>(&self, ex: &E, other: T) -> bool
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialOrd<<T::Source as Source>::Item>,
    {
        self.partial_cmp(ex, other).is_some_and(Ordering::is_le)
    }

    /// `true` where the items are lexicographically greater than those of `other`, as
    /// `Iterator::gt`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!([2].pipe().gt(&SequentialEx, &[1, 9]));
    /// ```
    pub fn gt<E, T>(&self, ex: &E, other: T) -> bool
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialOrd<<T::Source as Source>::Item>,
    {
        self.partial_cmp(ex, other) == Some(Ordering::Greater)
    }

    /// `true` where the items are lexicographically greater than or equal to those of
    /// `other`, as `Iterator::ge`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert!((0..3).pipe().ge(&SequentialEx, 0..3));
    /// ```
    pub fn ge<E, T>(&self, ex: &E, other: T) -> bool
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        S::Item: PartialOrd<<T::Source as Source>::Item>,
    {
        self.partial_cmp(ex, other).is_some_and(Ordering::is_ge)
    }

    /// What `differ` says of the first pair (by index) of which it says something, and how the
    /// lengths compare; the longer side's item after the common prefix is made where no pair
    /// differs and the lengths do (the module doc).
    fn first_difference<E, T, R, F>(&self, ex: &E, other: T, differ: F) -> (Option<R>, Ordering)
    where
        E: Executor + ?Sized,
        T: IntoPipeline<Source: Source>,
        R: Send,
        F: Fn(S::Item, <T::Source as Source>::Item) -> Option<R> + Sync,
    {
        let other = other.pipe().source;
        let pairs = from_source(Zip {
            a: ByRef(&self.source),
            b: ByRef(&other),
        });
        let first = pairs.find_map_first(ex, |(a, b)| differ(a, b));
        let lengths = self.source.len().cmp(&other.len());
        if first.is_none() {
            match lengths {
                Ordering::Greater => drop(self.source.get(other.len())),
                Ordering::Less => drop(other.get(self.source.len())),
                Ordering::Equal => {}
            }
        }
        (first, lengths)
    }
}
