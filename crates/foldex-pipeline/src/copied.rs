//! `copied` and `cloned` on a pipeline that is no longer indexable (rayon has them on every
//! parallel iterator of references): a stage that clones each `&T` it is given. On an
//! indexable pipeline they are the index-preserving adapter
//! [`Cloned`](crate::adapters::Cloned) instead.

use crate::pipeline::Pipeline;
use crate::stage::{Then, Transform, Xf};
use crate::streamed::PipeSource;
use foldex_core::StopProbe;
use std::ops::ControlFlow;

/// `copied` / `cloned` after a stage that changed the number of items: each `&T` becomes a
/// clone of the `T` (a copy, for `copied`, which asks for `T: Copy`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClonedStage;

impl<'a, T: Clone + 'a> Transform<&'a T> for ClonedStage {
    type Out = T;
    type State = ();
    const PER_ITEM: bool = true;

    #[inline]
    fn start(&self) {}

    #[inline]
    fn step<A, K>(
        &self,
        _: &mut (),
        acc: A,
        item: &'a T,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, T) -> ControlFlow<A, A>,
    {
        sink(acc, item.clone())
    }
}

/// `copied` and `cloned` once the pipeline has a transform that changes the number of items.
impl<S: PipeSource, T: Transform<S::Item>, K> Pipeline<S, Xf<T>, K> {
    /// Copies items out of references, as `Iterator::copied`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = [3u8, 4, 5, 6];
    /// let odd: Vec<u8> = v.pipe().filter(|x| **x % 2 == 1).copied().collect(&SequentialEx);
    /// assert_eq!(odd, [3, 5]);
    /// ```
    pub fn copied<'a, U>(self) -> Pipeline<S, Xf<Then<T, ClonedStage>>, K>
    where
        T: Transform<S::Item, Out = &'a U>,
        U: Copy + 'a,
    {
        self.then_cloned()
    }

    /// Clones items out of references, as `Iterator::cloned`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let names = [String::from("ab"), String::from("c")];
    /// let long: Vec<String> = names.pipe().filter(|s| s.len() > 1).cloned().collect(&SequentialEx);
    /// assert_eq!(long, ["ab"]);
    /// ```
    pub fn cloned<'a, U>(self) -> Pipeline<S, Xf<Then<T, ClonedStage>>, K>
    where
        T: Transform<S::Item, Out = &'a U>,
        U: Clone + 'a,
    {
        self.then_cloned()
    }

    fn then_cloned(self) -> Pipeline<S, Xf<Then<T, ClonedStage>>, K> {
        Pipeline {
            source: self.source,
            transform: Xf(Then(self.transform.0, ClonedStage)),
            codec: self.codec,
        }
    }
}
