//! `find_map_first`, `find_map_any`, `find_map_last` and `position_any`: the searches of
//! `reduce.rs` that map while they search, as rayon names them. Each is deterministic: the
//! `_any` forms give the first match, as `find_any` does.

use crate::pipeline::Pipeline;
use crate::stage::Transform;
use crate::stages::FilterMap;
use crate::streamed::PipeSource;
use foldex_core::{Codec, Executor};

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// The first `Some` that `f` makes of an item, by index, as `Iterator::find_map`:
    /// `filter_map(f)` then [`find_first`](Pipeline::find_first), so nothing after that item
    /// runs once it is found.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let words = ["a", "7", "b", "42"];
    /// let n = words.pipe().find_map_first(&ThreadedEx::new(), |w| w.parse::<u32>().ok());
    /// assert_eq!(n, Some(7));
    /// ```
    pub fn find_map_first<E, R, F>(&self, ex: &E, f: F) -> Option<R>
    where
        E: Executor + ?Sized,
        R: Send,
        F: Fn(X::Out) -> Option<R> + Sync,
        K: Codec<Option<R>>,
    {
        self.lent_then(FilterMap(f)).find_first(ex, |_| true)
    }

    /// A `Some` that `f` makes of an item: the first one, since foldex's search is
    /// deterministic (rayon's `find_map_any` may return any).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let half = (1..100).pipe().find_map_any(&SequentialEx, |x| (x % 10 == 0).then_some(x / 2));
    /// assert_eq!(half, Some(5));
    /// ```
    pub fn find_map_any<E, R, F>(&self, ex: &E, f: F) -> Option<R>
    where
        E: Executor + ?Sized,
        R: Send,
        F: Fn(X::Out) -> Option<R> + Sync,
        K: Codec<Option<R>>,
    {
        self.find_map_first(ex, f)
    }

    /// The last `Some` that `f` makes of an item, by index: `filter_map(f)` then
    /// [`find_last`](Pipeline::find_last), so it stops where `find_last` stops.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let words = ["a", "7", "b", "42", "c"];
    /// let n = words.pipe().find_map_last(&SequentialEx, |w| w.parse::<u32>().ok());
    /// assert_eq!(n, Some(42));
    /// ```
    pub fn find_map_last<E, R, F>(&self, ex: &E, f: F) -> Option<R>
    where
        E: Executor + ?Sized,
        R: Send,
        F: Fn(X::Out) -> Option<R> + Sync,
        K: Codec<Option<R>>,
    {
        self.lent_then(FilterMap(f)).find_last(ex, |_| true)
    }

    /// The position of an item for which `f` holds: the first one, since foldex's search is
    /// deterministic (rayon's `position_any` may return any).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// assert_eq!([3, 8, 5, 8].pipe().position_any(&SequentialEx, |&x| x == 8), Some(1));
    /// ```
    pub fn position_any<E, F>(&self, ex: &E, f: F) -> Option<usize>
    where
        E: Executor + ?Sized,
        F: Fn(X::Out) -> bool + Sync,
        K: Codec<(usize, Option<usize>)>,
    {
        self.position_first(ex, f)
    }
}
