//! `update` (rayon's): each item changed in place by a closure, as an index-preserving
//! adapter while the pipeline is indexable and as a stage after one that is not; and
//! `panic_fuse` (rayon's), which foldex's folds make the identity.

use crate::pipeline::Pipeline;
use crate::stage::{Append, Id, Route, Transform, Xf};
use crate::streamed::PipeSource;
use foldex_core::source::{RangeVisitor, Spent};
use foldex_core::{Source, StopProbe};
use std::fmt;
use std::ops::{ControlFlow, Range};

/// `update` on an indexable pipeline: item `i` is `inner[i]` after `f(&mut inner[i])`.
#[derive(Clone, Copy)]
pub struct Update<S, F> {
    pub(crate) inner: S,
    pub(crate) f: F,
}

impl<S: fmt::Debug, F> fmt::Debug for Update<S, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Update")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

/// `item`, after `f` has changed it.
#[inline]
fn updated<T>(f: &impl Fn(&mut T), mut item: T) -> T {
    f(&mut item);
    item
}

struct UpdateVisitor<'f, F, V> {
    f: &'f F,
    visitor: V,
}

impl<T, F: Fn(&mut T), V: RangeVisitor<T>> RangeVisitor<T> for UpdateVisitor<'_, F, V> {
    type Output = V::Output;
    #[inline]
    fn visit<I: Iterator<Item = T>>(self, items: I) -> V::Output {
        let f = self.f;
        self.visitor.visit(items.map(move |item| updated(f, item)))
    }
}

impl<S: Source, F: Fn(&mut S::Item) + Sync> Source for Update<S, F> {
    type Item = S::Item;
    const HANDS_OUT_ONCE: bool = S::HANDS_OUT_ONCE;
    const MAY_HAVE_SIDE_EFFECT: bool = true;
    #[inline]
    fn start_fold(&self) -> Result<(), Spent> {
        self.inner.start_fold()
    }

    fn piece_len(&self) -> foldex_core::exec::PieceLen {
        self.inner.piece_len()
    }
    #[inline]
    fn len(&self) -> usize {
        self.inner.len()
    }
    #[inline]
    fn get(&self, index: usize) -> S::Item {
        updated(&self.f, self.inner.get(index))
    }
    #[inline]
    fn visit_range<V: RangeVisitor<S::Item>>(&self, range: Range<usize>, visitor: V) -> V::Output {
        let f = &self.f;
        self.inner.visit_range(range, UpdateVisitor { f, visitor })
    }
}

/// `update` after a stage that changed the number of items.
#[derive(Clone, Copy)]
pub struct UpdateStage<F>(pub(crate) F);

impl<F> fmt::Debug for UpdateStage<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpdateStage").finish_non_exhaustive()
    }
}

impl<In, F: Fn(&mut In) + Sync> Transform<In> for UpdateStage<F> {
    type Out = In;
    type State = ();

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.plain()
    }

    #[inline]
    fn start(&self) {}

    #[inline]
    fn step<A, K>(
        &self,
        _: &mut (),
        acc: A,
        item: In,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, In) -> ControlFlow<A, A>,
    {
        sink(acc, updated(&self.0, item))
    }
}

/// `update` on an indexable pipeline.
impl<S: Source, K> Pipeline<S, Id, K> {
    /// Each item after `f` has changed it in place (rayon's `update`): `map` for a closure
    /// that mutates rather than returns. Index-preserving, so `enumerate`, `zip` and the like
    /// still apply after it.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (0..4).pipe().map(|x| vec![x]).update(|v| v.push(0)).enumerate();
    /// let got = v.collect::<Vec<_>>(&SequentialEx);
    /// assert_eq!(got, [(0, vec![0, 0]), (1, vec![1, 0]), (2, vec![2, 0]), (3, vec![3, 0])]);
    /// ```
    pub fn update<F>(self, f: F) -> Pipeline<Update<S, F>, Id, K>
    where
        F: Fn(&mut S::Item) + Sync,
    {
        Pipeline {
            source: Update {
                inner: self.source,
                f,
            },
            transform: Id,
            codec: self.codec,
        }
    }
}

/// `update` once the pipeline has a transform that changes the number of items.
impl<S: PipeSource, T: Transform<S::Item>, K> Pipeline<S, Xf<T>, K> {
    /// Each item after `f` has changed it in place (rayon's `update`).
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let v = (0..6).pipe().filter(|x| x % 2 == 0).update(|x| *x *= 10);
    /// assert_eq!(v.collect::<Vec<_>>(&SequentialEx), [0, 20, 40]);
    /// ```
    pub fn update<F>(self, f: F) -> Pipeline<S, <Xf<T> as Append<UpdateStage<F>>>::Output, K>
    where
        F: Fn(&mut T::Out) + Sync,
    {
        Pipeline {
            source: self.source,
            transform: self.transform.append(UpdateStage(f)),
            codec: self.codec,
        }
    }
}

/// `panic_fuse`, on any pipeline.
impl<S, X, K> Pipeline<S, X, K> {
    /// The same pipeline (rayon's `panic_fuse`, which makes a panic stop the other threads
    /// soon). Every foldex fold already does: a panic stops all work to its right at once
    /// (running pieces look between blocks of items), while work to its left goes on only
    /// because a `Break` or an earlier panic there would still decide the result, which is
    /// the panic the sequential run meets first. So `panic_fuse` changes nothing, and is here
    /// so that rayon code reads the same.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let ran = std::panic::catch_unwind(|| {
    ///     (0..1_000_000_000u64).pipe().panic_fuse().for_each(&ThreadedEx::new(), |x| {
    ///         assert!(x != 3, "three");
    ///     })
    /// });
    /// assert!(ran.is_err());
    /// ```
    pub fn panic_fuse(self) -> Self {
        self
    }
}
