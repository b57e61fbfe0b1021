//! What [`Pipeline::collect`](crate::Pipeline::collect) can build, and how each collection is
//! folded: a partial collection per piece, merged left to right.

use crate::pipeline::Pipeline;
use crate::sources::from_source;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor, ExecutorExt, Source};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasher, Hash};
use std::ops::ControlFlow;

/// A collection a pipeline can collect into, as a fold: [`FromPipeline::start`] makes a piece's
/// partial collection, [`FromPipeline::push`] adds an item (or stops the fold, for `Result` and
/// `Option`), [`FromPipeline::merge`] joins two adjacent pieces' partials, left first, and
/// [`FromPipeline::finish`] makes the result.
///
/// ```
/// use foldex_pipeline::{FromPipeline, IntoPipeline};
/// use foldex_seq::SequentialEx;
/// use std::ops::ControlFlow;
///
/// /// The items' total length, counted as they are collected.
/// struct TotalLen(usize);
/// impl FromPipeline<&'static str> for TotalLen {
///     type Partial = usize;
///     fn start() -> usize { 0 }
///     fn push(n: usize, s: &'static str) -> ControlFlow<usize, usize> { ControlFlow::Continue(n + s.len()) }
///     fn merge(a: usize, b: usize) -> usize { a + b }
///     fn finish(n: usize) -> Self { TotalLen(n) }
/// }
/// let TotalLen(n) = ["ab", "c"].pipe().copied().collect(&SequentialEx);
/// assert_eq!(n, 3);
/// ```
pub trait FromPipeline<T>: Sized {
    /// A piece's partial collection.
    type Partial: Send;
    /// Whether [`FromPipeline::push`] may return `Break`.
    const BREAKS: bool = false;
    /// An empty partial collection.
    fn start() -> Self::Partial;
    /// Adds `item` to the partial collection.
    fn push(partial: Self::Partial, item: T) -> ControlFlow<Self::Partial, Self::Partial>;
    /// Joins the partials of two adjacent pieces, `left` first.
    fn merge(left: Self::Partial, right: Self::Partial) -> Self::Partial;
    /// The collection.
    fn finish(partial: Self::Partial) -> Self;

    /// Collects the items of an indexable pipeline, one per index of `items`. The default folds
    /// them with the four functions above; `Vec` writes them in place instead
    /// ([`ExecutorExt::collect_vec`]).
    fn collect_indexed<E, S>(ex: &E, items: S) -> Self
    where
        E: Executor + ?Sized,
        S: Source<Item = T>,
    {
        from_source(items).collect_folded(ex)
    }
}

/// In place (one allocation, each piece writing its own range) while the pipeline is
/// indexable; otherwise a vector per piece, concatenated once at the end.
impl<T: Send> FromPipeline<T> for Vec<T> {
    /// The vectors of the pieces merged into this one, then its own: merging moves vectors,
    /// never items, and `finish` copies each item once.
    type Partial = (Vec<Vec<T>>, Vec<T>);
    fn start() -> Self::Partial {
        (Vec::new(), Vec::new())
    }
    #[inline]
    fn push((done, mut last): Self::Partial, item: T) -> ControlFlow<Self::Partial, Self::Partial> {
        last.push(item);
        ControlFlow::Continue((done, last))
    }
    fn merge(
        (mut done, last): Self::Partial,
        (right_done, right_last): Self::Partial,
    ) -> Self::Partial {
        if !last.is_empty() {
            done.push(last);
        }
        done.extend(right_done);
        (done, right_last)
    }
    fn finish((done, mut last): Self::Partial) -> Vec<T> {
        if done.is_empty() {
            return last;
        }
        let mut all = Vec::with_capacity(done.iter().map(Vec::len).sum::<usize>() + last.len());
        for mut segment in done {
            all.append(&mut segment);
        }
        all.append(&mut last);
        all
    }
    fn collect_indexed<E, S>(ex: &E, items: S) -> Vec<T>
    where
        E: Executor + ?Sized,
        S: Source<Item = T>,
    {
        ex.collect_vec(items)
    }
}

/// Collects `String`s from `char`, `&str` and `String` items.
macro_rules! collect_string {
    ($($item:ty => |$s:ident, $x:ident| $push:expr;)*) => {$(
        impl FromPipeline<$item> for String {
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
    char => |s, c| s.push(c);
    String => |s, x| s.push_str(&x);
}

impl<'a> FromPipeline<&'a str> for String {
    type Partial = String;
    fn start() -> String {
        String::new()
    }
    #[inline]
    fn push(mut s: String, x: &'a str) -> ControlFlow<String, String> {
        s.push_str(x);
        ControlFlow::Continue(s)
    }
    fn merge(mut left: String, right: String) -> String {
        left.push_str(&right);
        left
    }
    fn finish(s: String) -> String {
        s
    }
}

/// Maps and sets: the right piece's entries are added to the left's, so a later key replaces
/// an earlier one, as `Iterator::collect` does.
macro_rules! collect_extend {
    ($([$($generics:tt)*] $item:ty => $coll:ty;)*) => {$(
        impl<$($generics)*> FromPipeline<$item> for $coll {
            type Partial = $coll;
            fn start() -> $coll {
                <$coll>::default()
            }
            #[inline]
            fn push(mut coll: $coll, item: $item) -> ControlFlow<$coll, $coll> {
                coll.extend(std::iter::once(item));
                ControlFlow::Continue(coll)
            }
            fn merge(mut left: $coll, right: $coll) -> $coll {
                left.extend(right);
                left
            }
            fn finish(coll: $coll) -> $coll {
                coll
            }
        }
    )*};
}

collect_extend! {
    [K: Eq + Hash + Send, V: Send, H: BuildHasher + Default + Send] (K, V) => HashMap<K, V, H>;
    [T: Eq + Hash + Send, H: BuildHasher + Default + Send] T => HashSet<T, H>;
    [K: Ord + Send, V: Send] (K, V) => BTreeMap<K, V>;
    [T: Ord + Send] T => BTreeSet<T>;
}

/// Stops at the first `Err` by index and returns it; otherwise collects the `Ok` values.
impl<T, E: Send, C: FromPipeline<T>> FromPipeline<Result<T, E>> for Result<C, E> {
    type Partial = Result<C::Partial, E>;
    const BREAKS: bool = true;
    fn start() -> Self::Partial {
        Ok(C::start())
    }
    #[inline]
    fn push(
        partial: Self::Partial,
        item: Result<T, E>,
    ) -> ControlFlow<Self::Partial, Self::Partial> {
        match (partial, item) {
            (Ok(partial), Ok(item)) => match C::push(partial, item) {
                ControlFlow::Continue(partial) => ControlFlow::Continue(Ok(partial)),
                ControlFlow::Break(partial) => ControlFlow::Break(Ok(partial)),
            },
            (_, Err(error)) | (Err(error), _) => ControlFlow::Break(Err(error)),
        }
    }
    fn merge(left: Self::Partial, right: Self::Partial) -> Self::Partial {
        match (left, right) {
            (Ok(left), Ok(right)) => Ok(C::merge(left, right)),
            (Err(error), _) | (_, Err(error)) => Err(error),
        }
    }
    fn finish(partial: Self::Partial) -> Self {
        partial.map(C::finish)
    }
}

/// Stops at the first `None` by index and returns `None`; otherwise collects the values.
impl<T, C: FromPipeline<T>> FromPipeline<Option<T>> for Option<C> {
    type Partial = Option<C::Partial>;
    const BREAKS: bool = true;
    fn start() -> Self::Partial {
        Some(C::start())
    }
    #[inline]
    fn push(partial: Self::Partial, item: Option<T>) -> ControlFlow<Self::Partial, Self::Partial> {
        match (partial, item) {
            (Some(partial), Some(item)) => match C::push(partial, item) {
                ControlFlow::Continue(partial) => ControlFlow::Continue(Some(partial)),
                ControlFlow::Break(partial) => ControlFlow::Break(Some(partial)),
            },
            _ => ControlFlow::Break(None),
        }
    }
    fn merge(left: Self::Partial, right: Self::Partial) -> Self::Partial {
        Some(C::merge(left?, right?))
    }
    fn finish(partial: Self::Partial) -> Self {
        partial.map(C::finish)
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Splits pairs into two collections, in order, as `Iterator::unzip`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let (small, big): (Vec<usize>, Vec<usize>) = (0..3usize).pipe().map(|i| (i, i * 100)).unzip(&SequentialEx);
    /// assert_eq!((small, big), (vec![0, 1, 2], vec![0, 100, 200]));
    /// ```
    pub fn unzip<A, B, CA, CB>(&self, ex: &(impl Executor + ?Sized)) -> (CA, CB)
    where
        X: Transform<S::Item, Out = (A, B)>,
        CA: FromPipeline<A>,
        CB: FromPipeline<B>,
        K: Codec<(CA::Partial, CB::Partial)>,
    {
        self.collect_two(ex, |(a, b)| (Some(a), Some(b)))
    }

    /// Splits the items into those for which `left` holds and the others, each in order, as
    /// `Iterator::partition`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let (even, odd): (Vec<usize>, Vec<usize>) = (0..6usize).pipe().partition(&SequentialEx, |x| x % 2 == 0);
    /// assert_eq!((even, odd), (vec![0, 2, 4], vec![1, 3, 5]));
    /// ```
    pub fn partition<C, P>(&self, ex: &(impl Executor + ?Sized), left: P) -> (C, C)
    where
        C: FromPipeline<X::Out>,
        P: Fn(&X::Out) -> bool + Sync,
        K: Codec<(C::Partial, C::Partial)>,
    {
        self.collect_two(ex, |x| {
            if left(&x) {
                (Some(x), None)
            } else {
                (None, Some(x))
            }
        })
    }

    /// Collects each item's parts (`split`) into two collections side by side.
    pub(crate) fn collect_two<A, B, CA, CB, F>(
        &self,
        ex: &(impl Executor + ?Sized),
        split: F,
    ) -> (CA, CB)
    where
        CA: FromPipeline<A>,
        CB: FromPipeline<B>,
        F: Fn(X::Out) -> (Option<A>, Option<B>) + Sync,
        K: Codec<(CA::Partial, CB::Partial)>,
    {
        let push = |partials, x| {
            let (x_a, x_b) = split(x);
            push_both::<A, B, CA, CB>(partials, x_a, x_b)
        };
        let merge = |(la, lb), (ra, rb)| (CA::merge(la, ra), CB::merge(lb, rb));
        let (a, b) = match self.try_fold(ex, || (CA::start(), CB::start()), push, merge) {
            ControlFlow::Continue(both) | ControlFlow::Break(both) => both,
        };
        (CA::finish(a), CB::finish(b))
    }
}

/// The partials of two collections side by side.
type Partials<A, B, CA, CB> = (
    <CA as FromPipeline<A>>::Partial,
    <CB as FromPipeline<B>>::Partial,
);

/// Two partials after a push: `Break` where either side stops.
type Pushed<A, B, CA, CB> = ControlFlow<Partials<A, B, CA, CB>, Partials<A, B, CA, CB>>;

/// Pushes `x` into the left partial and `y` into the right one, where given; `Break` where
/// either push breaks.
#[inline]
pub(crate) fn push_both<A, B, CA: FromPipeline<A>, CB: FromPipeline<B>>(
    (a, b): (CA::Partial, CB::Partial),
    x: Option<A>,
    y: Option<B>,
) -> Pushed<A, B, CA, CB> {
    let a = match x {
        Some(item) => CA::push(a, item),
        None => ControlFlow::Continue(a),
    };
    let b = match y {
        Some(item) => CB::push(b, item),
        None => ControlFlow::Continue(b),
    };
    match (a, b) {
        (ControlFlow::Continue(a), ControlFlow::Continue(b)) => ControlFlow::Continue((a, b)),
        (
            ControlFlow::Break(a) | ControlFlow::Continue(a),
            ControlFlow::Break(b) | ControlFlow::Continue(b),
        ) => ControlFlow::Break((a, b)),
    }
}
