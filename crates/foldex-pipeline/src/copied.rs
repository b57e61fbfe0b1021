//! `copied` and `cloned` on a pipeline that is no longer indexable (rayon has them on every
//! parallel iterator of references): a stage that clones each `&T` it is given. On an
//! indexable pipeline they are the index-preserving adapter
//! [`Cloned`](crate::adapters::Cloned) instead; on the pieces lent by
//! [`flat_map_ref`](Pipeline::flat_map_ref), [`RefPipeline::map`] with a clone.

use crate::borrowed::{KeepRef, Lend, LendMap, RefPipeline};
use crate::pipeline::Pipeline;
use crate::stage::{Append, Then, Transform, Xf};
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

/// The stage of [`RefPipeline::copied`] and [`RefPipeline::cloned`]: each kept piece cloned.
type LendCloned<F, Q, B, T> = LendMap<F, Q, B, T, fn(&T) -> T>;

/// `copied` and `cloned` on the pieces of [`flat_map_ref`](Pipeline::flat_map_ref), as
/// [`RefPipeline::map`] with a clone: each piece becomes owned, and the pipeline a
/// [`Pipeline`] again.
impl<S, X, K, F, B, T, Q> RefPipeline<S, X, K, F, B, T, Q>
where
    S: PipeSource,
    X: Transform<S::Item> + Append<LendCloned<F, Q, B, T>>,
    X::Out: AsRef<B>,
    F: for<'a> Lend<'a, B, T>,
    Q: KeepRef<T>,
    B: ?Sized,
    T: Clone,
{
    /// Copies each piece out of its reference, as `Iterator::copied`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let rows = vec![vec![1u32, 2], vec![], vec![3]];
    /// let all: Vec<u32> = rows.pipe().flat_map_ref(<[u32]>::iter).copied().collect(&SequentialEx);
    /// assert_eq!(all, [1, 2, 3]);
    /// ```
    pub fn copied(self) -> Pipeline<S, X::Output, K>
    where
        T: Copy,
    {
        self.cloned()
    }

    /// Clones each piece out of its reference, as `Iterator::cloned`.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let rows = vec![vec![String::from("a")], vec![String::from("bc")]];
    /// let long = rows.pipe().flat_map_ref(<[String]>::iter).filter(|s| s.len() > 1).cloned();
    /// assert_eq!(long.collect::<Vec<_>>(&SequentialEx), ["bc"]);
    /// ```
    pub fn cloned(self) -> Pipeline<S, X::Output, K> {
        self.map(T::clone as fn(&T) -> T)
    }
}
