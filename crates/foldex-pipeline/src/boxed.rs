//! Stages whose types are erased: [`Pipeline::boxed`], for a chain chosen at run time (from a
//! configuration, a command line, a test that draws chains at random), as `Box<dyn Iterator>`
//! is for iterators.
//!
//! A boxed chain is one [`Transform`] whose state is a `Box<dyn Any + Send>` and whose calls go
//! through a trait object, with the reduction's accumulator handed through a slot, so every
//! pipeline method and reduction applies after it unchanged. Its type says it may stop the fold
//! and hold items at a piece's edge, so every fold a chain may need is compiled for it; which
//! one a run takes is asked of the chain it erases, at run time ([`Transform::route`]).

use crate::pipeline::Pipeline;
use crate::stage::{Route, Transform, Xf};
use crate::streamed::PipeSource;
use foldex_core::StopProbe;
use std::any::Any;
use std::fmt;
use std::ops::ControlFlow;

/// A boxed chain's per-piece state.
pub type BoxedState = Box<dyn Any + Send>;

/// The stages of a pipeline after [`Pipeline::boxed`](crate::Pipeline::boxed): the `X` of its
/// [`Pipeline<S, X>`](crate::Pipeline).
pub type BoxedStages<In, Out> = Xf<Boxed<In, Out>>;

/// Where an erased stage passes its items: the next stage, with the accumulator out of sight.
type Sink<'s, Out> = dyn FnMut(Out) -> ControlFlow<()> + 's;

/// A [`Transform`] behind a trait object: the accumulator is the sink's business.
trait Erased<In, Out>: Send + Sync {
    fn breaks(&self) -> bool;
    fn merges(&self) -> bool;
    fn start(&self) -> BoxedState;
    fn front(&self) -> BoxedState;
    fn step(
        &self,
        state: &mut BoxedState,
        item: In,
        sink: &mut Sink<'_, Out>,
        probe: &StopProbe,
    ) -> ControlFlow<()>;
    fn merge(
        &self,
        left: &mut BoxedState,
        right: BoxedState,
        sink: &mut Sink<'_, Out>,
    ) -> ControlFlow<()>;
    fn finish(&self, state: BoxedState, sink: &mut Sink<'_, Out>) -> ControlFlow<()>;
}

/// The state of the erased chain `T`, from a state that chain made.
fn state_of<T: 'static>(state: &mut BoxedState) -> &mut T {
    state
        .downcast_mut()
        .expect("a boxed chain's states are the ones it made")
}

impl<In, T> Erased<In, T::Out> for T
where
    T: Transform<In> + Send,
    T::State: 'static,
{
    fn breaks(&self) -> bool {
        Transform::breaks(self)
    }

    fn merges(&self) -> bool {
        Transform::merges(self)
    }

    fn start(&self) -> BoxedState {
        Box::new(Transform::start(self))
    }

    fn front(&self) -> BoxedState {
        Box::new(Transform::front(self))
    }

    fn step(
        &self,
        state: &mut BoxedState,
        item: In,
        sink: &mut Sink<'_, T::Out>,
        probe: &StopProbe,
    ) -> ControlFlow<()> {
        let state = state_of::<T::State>(state);
        Transform::step(self, state, (), item, &mut |(), out| sink(out), probe)
    }

    fn merge(
        &self,
        left: &mut BoxedState,
        right: BoxedState,
        sink: &mut Sink<'_, T::Out>,
    ) -> ControlFlow<()> {
        let right = *right
            .downcast::<T::State>()
            .expect("a boxed chain's states are the ones it made");
        let left = state_of::<T::State>(left);
        Transform::merge(self, left, right, (), &mut |(), out| sink(out))
    }

    fn finish(&self, state: BoxedState, sink: &mut Sink<'_, T::Out>) -> ControlFlow<()> {
        let state = *state
            .downcast::<T::State>()
            .expect("a boxed chain's states are the ones it made");
        Transform::finish(self, state, (), &mut |(), out| sink(out))
    }
}

/// A chain of stages with its type erased: see [`Pipeline::boxed`](crate::Pipeline::boxed).
pub struct Boxed<In, Out>(Box<dyn Erased<In, Out>>);

impl<In, Out> fmt::Debug for Boxed<In, Out> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Boxed")
            .field("breaks", &self.0.breaks())
            .field("merges", &self.0.merges())
            .finish_non_exhaustive()
    }
}

/// Hands `out` to `sink` with the accumulator kept in `slot`.
fn through_slot<A, Out, K>(slot: &mut Option<A>, sink: &mut K, out: Out) -> ControlFlow<()>
where
    K: FnMut(A, Out) -> ControlFlow<A, A>,
{
    let acc = slot
        .take()
        .expect("the accumulator is in its slot between items");
    let (acc, flow) = match sink(acc, out) {
        ControlFlow::Continue(acc) => (acc, ControlFlow::Continue(())),
        ControlFlow::Break(acc) => (acc, ControlFlow::Break(())),
    };
    *slot = Some(acc);
    flow
}

/// The accumulator back out of `slot`, as `flow` says.
fn out_of_slot<A>(slot: Option<A>, flow: ControlFlow<()>) -> ControlFlow<A, A> {
    let acc = slot.expect("the accumulator is in its slot between items");
    match flow {
        ControlFlow::Continue(()) => ControlFlow::Continue(acc),
        ControlFlow::Break(()) => ControlFlow::Break(acc),
    }
}

impl<In, Out> Transform<In> for Boxed<In, Out> {
    type Out = Out;
    type State = BoxedState;
    const BREAKS: bool = true;
    const MERGES: bool = true;

    fn route<Res, Way: Route<Res>>(&self, route: Way) -> Res {
        if self.0.merges() {
            route.merging()
        } else if self.0.breaks() {
            route.stopping()
        } else {
            route.plain()
        }
    }

    fn breaks(&self) -> bool {
        self.0.breaks()
    }

    fn merges(&self) -> bool {
        self.0.merges()
    }

    fn start(&self) -> BoxedState {
        self.0.start()
    }

    fn front(&self) -> BoxedState {
        self.0.front()
    }

    fn merge<A, K>(
        &self,
        left: &mut BoxedState,
        right: BoxedState,
        acc: A,
        sink: &mut K,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, Out) -> ControlFlow<A, A>,
    {
        let mut slot = Some(acc);
        let flow = self
            .0
            .merge(left, right, &mut |out| through_slot(&mut slot, sink, out));
        out_of_slot(slot, flow)
    }

    fn finish<A, K>(&self, state: BoxedState, acc: A, sink: &mut K) -> ControlFlow<A, A>
    where
        K: FnMut(A, Out) -> ControlFlow<A, A>,
    {
        let mut slot = Some(acc);
        let flow = self
            .0
            .finish(state, &mut |out| through_slot(&mut slot, sink, out));
        out_of_slot(slot, flow)
    }

    fn step<A, K>(
        &self,
        state: &mut BoxedState,
        acc: A,
        item: In,
        sink: &mut K,
        probe: &StopProbe,
    ) -> ControlFlow<A, A>
    where
        K: FnMut(A, Out) -> ControlFlow<A, A>,
    {
        let mut slot = Some(acc);
        let flow = self.0.step(
            state,
            item,
            &mut |out| through_slot(&mut slot, sink, out),
            probe,
        );
        out_of_slot(slot, flow)
    }
}

impl<S: PipeSource, X: Transform<S::Item>, K> Pipeline<S, X, K> {
    /// The same pipeline with the types of its stages erased, so that pipelines built from
    /// different chains (chosen at run time) have one type. Every stage, reduction and
    /// executor applies after it as before; each item pays a call through a trait object.
    ///
    /// ```
    /// use foldex_pipeline::IntoPipeline;
    /// use foldex_seq::SequentialEx;
    /// let odd_only = true;
    /// let mut p = (1..10i32).pipe().boxed();
    /// if odd_only {
    ///     p = p.filter(|x| x % 2 == 1).boxed();
    /// }
    /// let p = p.dedup().boxed();
    /// assert_eq!(p.collect::<Vec<_>>(&SequentialEx), [1, 3, 5, 7, 9]);
    /// ```
    pub fn boxed(self) -> Pipeline<S, BoxedStages<S::Item, X::Out>, K>
    where
        X: Send + 'static,
        X::State: 'static,
    {
        Pipeline {
            source: self.source,
            transform: Xf(Boxed(Box::new(self.transform))),
            codec: self.codec,
        }
    }
}
