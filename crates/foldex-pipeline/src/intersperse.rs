//! `intersperse`: a clone of a separator between each two adjacent items (itertools'
//! `intersperse`, `std`'s unstable `Iterator::intersperse`), exact across pieces.
//!
//! Each piece puts the separator between its own items; the one between the last item of a
//! piece and the first item of the next is passed on when the two are joined, into the left
//! piece's reduction after its items (the boundary protocol of [`crate::stateful`]). A piece
//! holds no item, only whether it has seen one.

use crate::pipeline::Pipeline;
use crate::stage::{Append, Route, Transform};
use crate::streamed::PipeSource;
use foldex_core::StopProbe;
use std::ops::ControlFlow;

/// `intersperse`: `separator` between each two adjacent items.
#[derive(Debug, Clone, Copy)]
pub struct Intersperse<T> {
    separator: T,
}

impl<T: Clone + Sync> Transform<T> for Intersperse<T> {
    type Out = T;
    /// Whether the piece has passed an item on.
    type State = bool;

    const MERGES: bool = true;

    #[inline]
    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        route.joining()
    }

    fn start(&self) -> bool {
        false
    }

    #[inline]
    fn step<A, K>(
        &self,
        seen: &mut bool,
        acc: A,
        item: T,
        sink: &mut K,
        _: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, T) -> ControlFlow<A, A>,
    {
        let acc = match std::mem::replace(seen, true) {
            true => sink(acc, self.separator.clone())?,
            false => acc,
        };
        sink(acc, item)
    }

    fn merge<A, K>(&self, left: &mut bool, right: bool, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, T) -> ControlFlow<A, A>,
    {
        if !(*left && right) {
            *left |= right;
            return ControlFlow::Continue(acc);
        }
        sink(acc, self.separator.clone())
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// A clone of `separator` between each two adjacent items, as itertools' `intersperse`
    /// (and `std`'s unstable `Iterator::intersperse`); exact across the pieces of a parallel
    /// run, whose joins add the separators between them.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_threaded::ThreadedEx;
    /// let s: String = ["fold", "on", "any"].pipe().copied().intersperse(" ").collect(&ThreadedEx::new());
    /// assert_eq!(s, "fold on any");
    /// ```
    pub fn intersperse(self, separator: X::Out) -> Pipeline<S, X::Output, K>
    where
        X::Out: Clone + Sync,
        X: Append<Intersperse<X::Out>>,
    {
        self.then(Intersperse { separator })
    }
}
