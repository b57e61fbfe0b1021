//! `partition_map`: each item sent left or right by an [`Either`], as rayon's.

use crate::collect::FromPipeline;
use crate::pipeline::Pipeline;
use crate::stage::Transform;
use crate::streamed::PipeSource;
use either::Either;
use foldex_core::{Codec, Executor};

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// Collects `f`'s `Left` values into one collection and its `Right` values into another,
    /// each in order, as rayon's `partition_map` (and itertools').
    ///
    /// ```
    /// use foldex_pipeline::{Either, IntoPipeline};
    /// use foldex_threaded::ThreadedEx;
    /// let words = ["1", "a", "22", "b"];
    /// let (numbers, others): (Vec<u32>, String) = words.pipe().partition_map(&ThreadedEx::new(), |w| {
    ///     match w.parse::<u32>() {
    ///         Ok(n) => Either::Left(n),
    ///         Err(_) => Either::Right(*w),
    ///     }
    /// });
    /// assert_eq!((numbers, others.as_str()), (vec![1, 22], "ab"));
    /// ```
    pub fn partition_map<CA, CB, L, R, F>(&self, ex: &(impl Executor + ?Sized), f: F) -> (CA, CB)
    where
        CA: FromPipeline<L>,
        CB: FromPipeline<R>,
        F: Fn(X::Out) -> Either<L, R> + Sync,
        K: Codec<(CA::Partial, CB::Partial)>,
    {
        self.collect_two(ex, |x| match f(x) {
            Either::Left(left) => (Some(left), None),
            Either::Right(right) => (None, Some(right)),
        })
    }
}
