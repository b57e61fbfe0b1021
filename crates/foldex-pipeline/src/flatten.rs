//! Stages that are a closure away from `flat_map`, `map_while` and `map`: `flatten` (and
//! rayon's `flatten_iter` / `flat_map_iter`), `while_some`, and `update` after a transform.
//!
//! foldex's `flat_map` iterates each item's inner sequence sequentially, inside the piece that
//! holds the item (looking at the stop probe every [`INNER_CHECK`](crate::transform::INNER_CHECK)
//! inner items): that is rayon's `flat_map_iter`, so `flat_map_iter` and `flatten_iter` are
//! the same stages as `flat_map` and `flatten`. rayon's `flat_map` to a *parallel* inner
//! iterator is [`flat_map_pipe`](Pipeline::flat_map_pipe), whose inner sequences are pipelines
//! (searched from either end); neither splits one item's sequence across workers: a
//! pipeline's parallelism is over its source's items.

use crate::pipeline::Pipeline;
use crate::stage::{Append, Transform};
use crate::stages::{FlatMap, MapWhile};
use crate::streamed::PipeSource;

/// The function of `flatten`: each item is its own inner sequence.
type Itself<T> = fn(T) -> T;

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Replaces each item, itself a sequence (`IntoIterator`), with its items in order, as
    /// `Iterator::flatten` (rayon's `flatten` and `flatten_iter`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let rows = [vec![1, 2], vec![], vec![3]];
    /// let flat: Vec<i32> = rows.pipe().flatten().map(|&x| x).collect(&ThreadedEx::new());
    /// assert_eq!(flat, [1, 2, 3]);
    /// let some: Vec<i32> = [Some(1), None, Some(3)].pipe().copied().flatten().collect(&ThreadedEx::new());
    /// assert_eq!(some, [1, 3]);
    /// ```
    #[doc(alias = "flatten_iter")]
    pub fn flatten(self) -> Pipeline<S, X::Output, K>
    where
        X::Out: IntoIterator,
        X: Append<FlatMap<Itself<X::Out>>>,
    {
        self.then(FlatMap(std::convert::identity as Itself<X::Out>))
    }

    /// rayon's name for [`flatten`](Pipeline::flatten), which iterates each inner sequence
    /// sequentially as rayon's `flatten_iter` does.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let n = [vec![1, 2], vec![3]].pipe().flatten_iter().count(&SequentialEx);
    /// assert_eq!(n, 3);
    /// ```
    pub fn flatten_iter(self) -> Pipeline<S, X::Output, K>
    where
        X::Out: IntoIterator,
        X: Append<FlatMap<Itself<X::Out>>>,
    {
        self.flatten()
    }

    /// rayon's name for [`flat_map`](Pipeline::flat_map), which iterates the sequence each
    /// item becomes sequentially, as rayon's `flat_map_iter` does.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (1..4).pipe().flat_map_iter(|n| 0..n).collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    pub fn flat_map_iter<U, F>(self, f: F) -> Pipeline<S, X::Output, K>
    where
        F: Fn(X::Out) -> U + Sync,
        U: IntoIterator,
        X: Append<FlatMap<F>>,
    {
        self.flat_map(f)
    }

    /// The values of the items up to the first `None`, which stops the run (rayon's
    /// `while_some`; `std`'s `map_while(|x| x)`): nothing after it runs, on any executor.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let v = [Some(1), Some(2), None, Some(4)];
    /// let got: Vec<i32> = v.pipe().copied().while_some().collect(&ThreadedEx::new());
    /// assert_eq!(got, [1, 2]);
    /// ```
    pub fn while_some<T>(self) -> Pipeline<S, X::Output, K>
    where
        X: Transform<S::Item, Out = Option<T>> + Append<MapWhile<Itself<Option<T>>>>,
    {
        self.then(MapWhile(std::convert::identity as Itself<Option<T>>))
    }
}
